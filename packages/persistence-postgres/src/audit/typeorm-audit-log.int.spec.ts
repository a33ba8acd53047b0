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
});
