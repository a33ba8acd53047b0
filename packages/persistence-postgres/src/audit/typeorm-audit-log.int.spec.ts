import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { TypeOrmAuditLog } from './typeorm-audit-log';

let dataSource: DataSource;

beforeAll(async () => {
  dataSource = await openTestDataSource(2);
});
afterAll(() => dataSource.destroy());

describe('audit_log', () => {
  it('accepts appends and refuses every change or removal', async () => {
    const scope = await createTestTenant(dataSource);
    const subjectId = `mh_${uniqueSuffix()}`;
    await new TypeOrmAuditLog(dataSource.manager).append([
      {
        scope,
        occurredAt: new Date('2026-03-02T09:00:00.000Z'),
        actor: 'api_key:key_1',
        action: 'access_grant.opened',
        subjectType: 'manual_handoff',
        subjectId,
        details: { grantId: 'grant_1' },
      },
    ]);
    const [row] = await dataSource.query('SELECT id, actor, details FROM audit_log WHERE subject_id = $1', [
      subjectId,
    ]);
    expect(row).toMatchObject({ actor: 'api_key:key_1', details: { grantId: 'grant_1' } });

    await expect(
      dataSource.query(`UPDATE audit_log SET actor = 'someone else' WHERE id = $1`, [row.id]),
    ).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(dataSource.query('DELETE FROM audit_log WHERE id = $1', [row.id])).rejects.toThrow(
      /append-only: DELETE refused/,
    );
    // TRUNCATE is refused before it touches anything (inside a transaction rolled back anyway).
    const runner = dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      await expect(runner.query('TRUNCATE audit_log')).rejects.toThrow(/append-only: TRUNCATE refused/);
      await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
    expect(await dataSource.query('SELECT actor FROM audit_log WHERE id = $1', [row.id])).toEqual([
      { actor: 'api_key:key_1' },
    ]);
  });

  it('stores a batch of any size row for row, whatever its strings hold', async () => {
    const scope = await createTestTenant(dataSource);
    const requestId = `req_${uniqueSuffix()}`;
    // Texts that an array literal must quote: quotes, backslashes, commas, braces, the word NULL, nothing.
    const awkward = ['a "quoted", {braced} \\ value', 'NULL', '', 'ünïcødé ✓'];
    const batch = (count: number, offset: number) =>
      Array.from({ length: count }, (_, i) => ({
        scope,
        occurredAt: new Date(Date.UTC(2026, 2, 2, 9, 0, 0, offset + i)),
        actor: awkward[i % awkward.length]!,
        action: 'authorization.read',
        subjectType: 'authorization',
        subjectId: `pa_${offset + i}`,
        requestId: i % 3 === 0 ? null : requestId,
        details: { via: i % 2 === 0 ? 'list' : 'retrieve', note: awkward[i % awkward.length]! },
      }));
    const entries = [...batch(1, 0), ...batch(3, 1), ...batch(700, 4)];
    const log = new TypeOrmAuditLog(dataSource.manager);
    await log.append(entries.slice(0, 1));
    await log.append(entries.slice(1, 4));
    await log.append(entries.slice(4));

    const rows = (await dataSource.query(
      `SELECT occurred_at, actor, action, subject_type, subject_id, request_id, details
         FROM audit_log WHERE organization_id = $1 AND environment = $2 ORDER BY occurred_at`,
      [scope.organizationId, scope.environment],
    )) as Array<Record<string, unknown>>;
    expect(rows).toEqual(
      entries.map((entry) => ({
        occurred_at: entry.occurredAt,
        actor: entry.actor,
        action: entry.action,
        subject_type: entry.subjectType,
        subject_id: entry.subjectId,
        request_id: entry.requestId,
        details: entry.details,
      })),
    );
  });
});
