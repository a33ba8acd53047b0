import type { ResourceEvent, ResourceSnapshot, TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, testCursors, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { PostgresEventRetention, TypeOrmResourceEventLog } from './typeorm-resource-event-log';

/* Decision 0049: the events of one save store their snapshot once, and every reader still gets it. */

let dataSource: DataSource;
beforeAll(async () => {
  dataSource = await openTestDataSource(4);
});
afterAll(() => dataSource.destroy());

// Far in the past: a purge at these times only touches this file's events, never a parallel test's.
const T0 = new Date('2001-05-06T07:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;

const endpointSnapshot = (id: string, createdAt: Date): ResourceSnapshot => ({
  kind: 'webhook_endpoint',
  endpoint: {
    id,
    url: 'https://example.test/hook',
    description: null,
    enabledEvents: ['*'],
    disabled: false,
    apiVersion: '2025-01-01',
    version: 1,
    createdAt,
    updatedAt: createdAt,
  },
});

const event = (
  scope: TenantScope,
  type: ResourceEvent['type'],
  snapshot: ResourceSnapshot,
  createdAt: Date,
): ResourceEvent => ({
  id: `evt_${uniqueSuffix()}`,
  type,
  organizationId: scope.organizationId,
  environment: scope.environment,
  authorizationId: null,
  createdAt,
  snapshot,
});

async function append(scope: TenantScope, events: ResourceEvent[]): Promise<void> {
  await dataSource.transaction((manager) =>
    new TypeOrmResourceEventLog(manager, scope, testCursors()).append(events),
  );
}

const stored = (ids: string[]) =>
  dataSource.query(
    `SELECT id, snapshot IS NOT NULL AS holds, snapshot_event_id FROM events WHERE id = ANY($1) ORDER BY sequence`,
    [ids],
  ) as Promise<Array<{ id: string; holds: boolean; snapshot_event_id: string | null }>>;

const listed = (scope: TenantScope) =>
  new TypeOrmResourceEventLog(dataSource.manager, scope, testCursors()).list({ limit: 10 });

describe('events of one save', () => {
  it('store a shared snapshot once, in the last of them; each listed event has it', async () => {
    const scope = await createTestTenant(dataSource);
    const shared = endpointSnapshot('we_shared', T0);
    const own = endpointSnapshot('we_own', T0);
    const first = event(scope, 'webhook_endpoint.test', shared, T0);
    const second = event(scope, 'webhook_endpoint.test', own, T0);
    const last = event(scope, 'webhook_endpoint.disabled', shared, T0);
    await append(scope, [first, second, last]);

    expect(await stored([first.id, second.id, last.id])).toEqual([
      { id: first.id, holds: false, snapshot_event_id: last.id },
      { id: second.id, holds: true, snapshot_event_id: null },
      { id: last.id, holds: true, snapshot_event_id: null },
    ]);
    const page = await listed(scope);
    expect(page.items.map((e) => [e.id, e.snapshot])).toEqual([
      [last.id, shared],
      [second.id, own],
      [first.id, shared],
    ]);
  });

  it('are read when appended: a snapshot changed later in the transaction is stored as it was', async () => {
    // The port's contract: a case's events carry its own state, which the case may change before commit.
    const scope = await createTestTenant(dataSource);
    const snapshot = endpointSnapshot('we_changing', T0);
    const appended = event(scope, 'webhook_endpoint.test', snapshot, T0);
    await dataSource.transaction(async (manager) => {
      await new TypeOrmResourceEventLog(manager, scope, testCursors()).append([appended]);
      if (snapshot.kind === 'webhook_endpoint') snapshot.endpoint.description = 'changed after append';
    });

    const page = await listed(scope);
    expect(page.items.map((e) => e.snapshot)).toEqual([endpointSnapshot('we_changing', T0)]);
  });

  it('a row holds a snapshot or names the event that does, never both and never neither', async () => {
    const scope = await createTestTenant(dataSource);
    const insert = (snapshot: string | null, heldBy: string | null) =>
      dataSource.query(
        `INSERT INTO events (id, organization_id, environment, type, authorization_id, created_at, snapshot,
           snapshot_event_id) VALUES ($1, $2, $3, 'file.ready', NULL, $4, $5, $6)`,
        [`evt_${uniqueSuffix()}`, scope.organizationId, scope.environment, T0, snapshot, heldBy],
      );
    await expect(insert(null, null)).rejects.toThrow(/events_one_snapshot/);
    await expect(insert('{}', 'evt_other')).rejects.toThrow(/events_one_snapshot/);
  });

  it('go together at retention: a purge deletes a save whole, and what it leaves still reads its snapshot', async () => {
    const scope = await createTestTenant(dataSource);
    const older = endpointSnapshot('we_older', T0);
    const newer = endpointSnapshot('we_newer', new Date(T0.getTime() + DAY));
    const olderSave = [older, older].map((s) => event(scope, 'webhook_endpoint.test', s, T0));
    const newerSave = [newer, newer].map((s) =>
      event(scope, 'webhook_endpoint.test', s, new Date(T0.getTime() + DAY)),
    );
    await append(scope, olderSave);
    await append(scope, newerSave);

    // Thirty days after the first save, one batch at a time: the older save goes, the newer one stays whole.
    const purged = await new PostgresEventRetention(dataSource).purgeExpired(
      new Date(T0.getTime() + 30 * DAY + 1),
      1,
    );
    expect(purged).toBeGreaterThanOrEqual(2);
    expect(await stored([...olderSave, ...newerSave].map((e) => e.id))).toEqual([
      { id: newerSave[0]!.id, holds: false, snapshot_event_id: newerSave[1]!.id },
      { id: newerSave[1]!.id, holds: true, snapshot_event_id: null },
    ]);
    const page = await listed(scope);
    expect(page.items.map((e) => e.snapshot)).toEqual([newer, newer]);
  });
});
