import { MarkDecisionOverdueUseCase, type Clock, type TenantScope } from '@prior-auth/domain';
import { JOB_TABLE, KeysetCursors, TypeOrmUnitOfWork } from '@prior-auth/persistence-postgres';
import { RandomIdGenerator, TokenSigner } from '@prior-auth/platform';
import request from 'supertest';
import { BASE, client, newKey, readyToConfirm, sandboxScope, type Client } from './authorization-helpers';
import { pipeline } from './pipeline-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * Events (spec decision 22, docs/decisions/0031-events-and-webhooks.md) as a client reads them at
 * GET /v1/events. The worker's steps run in this process (see pipeline-helpers); every response is checked
 * against the OpenAPI document.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

// Each test drives whole cases through the pipeline, through the real browser at the simulated payer
// website (two cases in one test).
jest.setTimeout(90_000);

interface EventBody {
  id: string;
  type: string;
  createdAt: string;
  authorizationId: string | null;
  data: { object: Record<string, unknown> };
}

let t: TestApp;
let tenant: TestTenant;
let stranger: TestTenant;
let c: Client;

beforeAll(async () => {
  t = await createTestApp();
  [tenant, stranger] = await Promise.all([t.createTenant(), t.createTenant()]);
  c = client(t.app, tenant.keys.sandbox);
});
afterAll(() => t.close());

const events = (query: string, key = tenant.keys.sandbox, version?: string) => {
  const req = request(t.app).get(`/v1/events${query}`).set('Authorization', `Bearer ${key}`);
  return version === undefined ? req : req.set('Prior-Auth-Version', version);
};

/** Every event of a case, oldest first, through the cursor pages. */
async function eventsOf(authorizationId: string, version?: string): Promise<EventBody[]> {
  const all: EventBody[] = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page = await events(
      `?authorizationId=${authorizationId}&limit=3${after}`,
      undefined,
      version,
    ).expect(200);
    all.push(...(page.body.data as EventBody[]));
    cursor = page.body.pagination.nextCursor as string | null;
  } while (cursor !== null);
  return all.reverse();
}

/** A sandbox case through submission and decision. */
async function completedCase(memberId = 'SBX-APPROVED') {
  const { authorization, file } = await readyToConfirm(c, tenant, 'automatic', memberId);
  await c
    .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
    .expect(200);
  const steps = pipeline(t);
  await steps.process(sandboxScope(tenant), authorization.id);
  expect(await steps.pollDecision(sandboxScope(tenant), authorization.id)).toBe('decision_recorded');
  return { id: authorization.id as string, fileId: file.id as string };
}

describe('GET /v1/events', () => {
  it('records every version and every status entered of a case, with the case as it was', async () => {
    const { id, fileId } = await completedCase();
    const all = await eventsOf(id);
    const statuses = all.filter((e) => !['authorization.created', 'authorization.updated'].includes(e.type));
    expect(statuses.map((e) => e.type)).toEqual([
      'authorization.requires_input',
      'authorization.requires_confirmation',
      'authorization.processing',
      'authorization.waiting_on_payer',
      'authorization.completed',
    ]);
    for (const event of statuses) {
      expect(event.data.object.status).toBe(event.type.slice('authorization.'.length));
    }
    expect(all[0]).toMatchObject({ type: 'authorization.created', authorizationId: id });
    expect(all[0]!.data.object).toMatchObject({ id, version: 1, status: 'requires_input' });

    // One `updated` per new version, each with that version; the last is the case as it is now.
    const updates = all.filter((e) => e.type === 'authorization.updated');
    const versions = updates.map((e) => e.data.object.version as number);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    const current = await c.get(id).expect(200);
    expect(updates[updates.length - 1]!.data.object).toEqual(current.body);
    expect(current.body.outcome).toBe('approved');

    // The uploaded document became ready: an event outside any case.
    const ready = await events('?type=file.ready&limit=100').expect(200);
    const fileEvent = (ready.body.data as EventBody[]).find((e) => e.data.object.id === fileId);
    expect(fileEvent).toMatchObject({ type: 'file.ready', authorizationId: null });
    expect(fileEvent!.data.object).toMatchObject({ status: 'ready' });
  });

  it('renders the resource in the caller’s API version', async () => {
    const { id } = await completedCase();
    const legacy = await eventsOf(id, '2024-01-01');
    const created = legacy.find((e) => e.type === 'authorization.created');
    expect(created!.data.object.status).toBe('draft');
    expect(created!.data.object).not.toHaveProperty('failure');
    const completed = legacy.find((e) => e.type === 'authorization.completed');
    expect(completed!.data.object).toMatchObject({ status: 'completed', outcome: 'approved' });
  });

  it('filters by type, pages newest first, and binds the cursor to the filters', async () => {
    await completedCase();
    await completedCase();
    const first = await events('?type=authorization.completed&limit=1').expect(200);
    expect(first.body.data).toHaveLength(1);
    const cursor = first.body.pagination.nextCursor as string;
    const second = await events(
      `?type=authorization.completed&limit=1&cursor=${encodeURIComponent(cursor)}`,
    ).expect(200);
    const [newer, older] = [first.body.data[0] as EventBody, second.body.data[0] as EventBody];
    expect(older.type).toBe('authorization.completed');
    expect(older.id).not.toBe(newer.id);
    expect(Date.parse(older.createdAt)).toBeLessThanOrEqual(Date.parse(newer.createdAt));

    const other = await events(`?limit=1&cursor=${encodeURIComponent(cursor)}`).expect(422);
    expect(other.body.error.code).toBe('request_validation_failed');
    const unknown = await events('?type=authorization.exploded').expect(422);
    expect(unknown.body.error.issues[0].location).toEqual(['query', 'type']);
  });

  it('shows an organization only its own events, per environment', async () => {
    const { id } = await completedCase();
    const theirs = await events(`?authorizationId=${id}`, stranger.keys.sandbox).expect(200);
    expect(theirs.body.data).toEqual([]);
    const production = await events(`?authorizationId=${id}`, tenant.keys.production).expect(200);
    expect(production.body.data).toEqual([]);
  });

  it('records manual_handoff.created and manual_handoff.closed', async () => {
    const { authorization } = await readyToConfirm(c, tenant, 'automatic', 'SBX-MANUAL-HANDOFF');
    await c
      .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
      .expect(200);
    await pipeline(t).process(sandboxScope(tenant), authorization.id);
    const current = await c.get(authorization.id).expect(200);
    expect(current.body.status).toBe('requires_action');
    const handoffs = `${BASE}/${authorization.id}/manual-handoffs`;
    const auth = { Authorization: `Bearer ${tenant.keys.sandbox}` };
    const created = await request(t.app)
      .post(handoffs)
      .set(auth)
      .set('If-Match', `"${current.body.version}"`)
      .set('Idempotency-Key', newKey())
      .expect(201);
    await request(t.app)
      .post(`${handoffs}/${created.body.manualHandoffId}/revoke`)
      .set(auth)
      .set('If-Match', `"${created.body.version}"`)
      .set('Idempotency-Key', newKey())
      .send({ reason: 'wrong operator' })
      .expect(200);

    const all = await eventsOf(authorization.id);
    const handoffEvents = all.filter((e) => e.type.startsWith('manual_handoff.'));
    expect(handoffEvents.map((e) => e.type)).toEqual(['manual_handoff.created', 'manual_handoff.closed']);
    expect(handoffEvents[0]!.data.object).toMatchObject({
      manualHandoffId: created.body.manualHandoffId,
      authorization: { id: authorization.id },
    });
    expect(handoffEvents[1]!.data.object).toMatchObject({ state: 'closed', result: 'revoked' });
    expect(all.map((e) => e.type)).toContain('authorization.requires_action');
  });
});

describe('authorization.decision_overdue', () => {
  const markOverdue = () =>
    new MarkDecisionOverdueUseCase({
      unitOfWork: new TypeOrmUnitOfWork(t.dataSource, {
        cursors: new KeysetCursors(new TokenSigner('test-signing-secret-test-signing-secret')),
        jobBoss: t.jobBoss,
      }),
      clock: { now: () => new Date() },
      ids: new RandomIdGenerator(),
    });

  /** The due-date job the receipt scheduled, as the worker would receive it. */
  async function overdueJobOf(authorizationId: string): Promise<{ startAfter: Date; due: string }> {
    const rows = await t.dataSource.query(
      `SELECT start_after, data FROM ${JOB_TABLE} WHERE name = 'decision_overdue' AND data->>'authorizationId' = $1`,
      [authorizationId],
    );
    expect(rows).toHaveLength(1);
    return { startAfter: rows[0].start_after as Date, due: rows[0].data.payload.decisionDueAt as string };
  }

  async function pendingCase(clock?: Clock) {
    const { authorization } = await readyToConfirm(c, tenant, 'automatic', 'SBX-PENDING');
    await c
      .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
      .expect(200);
    await pipeline(t, clock).process(sandboxScope(tenant), authorization.id);
    return authorization.id as string;
  }

  it('is scheduled with the receipt for the due time, and recorded when it runs past it', async () => {
    const id = await pendingCase({ now: () => new Date(Date.now() - 8 * DAY_MS) });
    const current = await c.get(id).expect(200);
    const job = await overdueJobOf(id);
    // Already due when scheduled: the queue runs it at once.
    expect(job.due).toBe(current.body.submission.decisionDueAt);

    const scope: TenantScope = sandboxScope(tenant);
    expect(await markOverdue().execute(scope, { authorizationId: id, decisionDueAt: job.due })).toBe(
      'decision_overdue',
    );
    const overdue = await events(`?authorizationId=${id}&type=authorization.decision_overdue`).expect(200);
    expect(overdue.body.data).toHaveLength(1);
    expect(overdue.body.data[0].data.object).toMatchObject({ id, status: 'waiting_on_payer' });
  });

  it('records nothing for a case not yet due', async () => {
    const id = await pendingCase();
    const job = await overdueJobOf(id);
    expect(new Date(job.startAfter).toISOString()).toBe(job.due);
    expect(Date.parse(job.due)).toBeGreaterThan(Date.now());
    expect(
      await markOverdue().execute(sandboxScope(tenant), { authorizationId: id, decisionDueAt: job.due }),
    ).toBe('not_overdue');
    const overdue = await events(`?authorizationId=${id}&type=authorization.decision_overdue`).expect(200);
    expect(overdue.body.data).toEqual([]);
  });
});
