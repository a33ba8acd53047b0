import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { TypeOrmAccessGrantStore } from './typeorm-access-grant-store';

let dataSource: DataSource;
let grants: TypeOrmAccessGrantStore;

beforeAll(async () => {
  dataSource = await openTestDataSource(2);
  grants = new TypeOrmAccessGrantStore(dataSource);
});
afterAll(() => dataSource.destroy());

const T0 = new Date('2026-03-02T09:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('TypeOrmAccessGrantStore', () => {
  it('records, finds, revokes per subject and audits openings, within one tenant', async () => {
    const scope = await createTestTenant(dataSource);
    const other = await createTestTenant(dataSource);
    const subjectId = `mh_${uniqueSuffix()}`;
    const grant = {
      id: `grant_${uniqueSuffix()}`,
      scope,
      kind: 'manual_handoff' as const,
      subjectId,
      expiresAt: at(60_000),
      createdAt: T0,
    };
    await grants.record(grant);
    expect(await grants.find(scope, grant.id)).toEqual({ ...grant, revokedAt: null });
    expect(await grants.find(other, grant.id)).toBeNull();

    await grants.recordOpening(grant, 'redirected', at(1_000));
    expect(await grants.revokeForSubject(other, subjectId, at(2_000))).toBe(0);
    expect(await grants.revokeForSubject(scope, subjectId, at(2_000))).toBe(1);
    expect((await grants.find(scope, grant.id))?.revokedAt).toEqual(at(2_000));
    await grants.recordOpening(grant, 'revoked', at(3_000));

    const openings = await dataSource.query(
      'SELECT outcome FROM access_grant_openings WHERE organization_id = $1 AND grant_id = $2 ORDER BY opened_at',
      [scope.organizationId, grant.id],
    );
    expect(openings).toEqual([{ outcome: 'redirected' }, { outcome: 'revoked' }]);
    const audit = await dataSource.query(
      'SELECT action, actor FROM audit_log WHERE subject_id = $1 ORDER BY id',
      [subjectId],
    );
    expect(audit).toEqual([
      { action: 'access_grant.redirected', actor: `access_grant:${grant.id}` },
      { action: 'access_grant.revoked', actor: `access_grant:${grant.id}` },
    ]);
  });
});
