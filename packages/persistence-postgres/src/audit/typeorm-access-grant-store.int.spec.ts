import type { AccessGrantRecord, TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { TypeOrmTransactions } from '../unit-of-work/postgres-transaction';
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

const newGrant = (
  scope: TenantScope,
  subjectId: string,
  expiresAt: Date = at(60_000),
): Omit<AccessGrantRecord, 'revokedAt'> => ({
  id: `grant_${uniqueSuffix()}`,
  scope,
  kind: 'manual_handoff',
  subjectId,
  expiresAt,
  createdAt: T0,
});

const openingsOf = (grantId: string) =>
  dataSource.query(
    `SELECT organization_id, environment, grant_id, outcome, opened_at, client_address, user_agent
     FROM access_grant_openings WHERE grant_id = $1 ORDER BY opened_at`,
    [grantId],
  );

describe('TypeOrmAccessGrantStore', () => {
  it('finds a recorded grant by its id alone, whatever its tenant', async () => {
    const scope = await createTestTenant(dataSource, 'production');
    const grant = newGrant(scope, `mh_${uniqueSuffix()}`);
    await grants.record(grant);

    expect(await grants.find(grant.id)).toEqual({ ...grant, revokedAt: null });
    expect(await grants.find(`grant_${uniqueSuffix()}`)).toBeNull();
  });

  it('revokes only the live grants of the subject', async () => {
    const scope = await createTestTenant(dataSource);
    const subjectId = `mh_${uniqueSuffix()}`;
    const otherSubjectId = `mh_${uniqueSuffix()}`;
    const live = [newGrant(scope, subjectId), newGrant(scope, subjectId)];
    const expired = newGrant(scope, subjectId, at(1_000));
    const alreadyRevoked = newGrant(scope, subjectId);
    const otherSubject = newGrant(scope, otherSubjectId);
    for (const grant of [...live, expired, alreadyRevoked, otherSubject]) await grants.record(grant);
    // Revoked earlier: revoking the subject again must keep that first revocation time.
    await dataSource.query('UPDATE access_grants SET revoked_at = $2 WHERE id = $1', [
      alreadyRevoked.id,
      at(500),
    ]);

    expect(await grants.revokeForSubject(subjectId, at(2_000))).toBe(live.length);

    for (const grant of live) expect((await grants.find(grant.id))?.revokedAt).toEqual(at(2_000));
    expect((await grants.find(expired.id))?.revokedAt).toBeNull();
    expect((await grants.find(alreadyRevoked.id))?.revokedAt).toEqual(at(500));
    expect((await grants.find(otherSubject.id))?.revokedAt).toBeNull();
    expect(await grants.revokeForSubject(subjectId, at(3_000))).toBe(0);
  });

  it('audits an opening of a known grant in its tenant, with the client address and user agent', async () => {
    const scope = await createTestTenant(dataSource);
    const grant = newGrant(scope, `mh_${uniqueSuffix()}`);
    await grants.record(grant);
    const client = { address: '203.0.113.7', userAgent: `Mozilla/5.0 (test ${uniqueSuffix()})` };

    await grants.recordOpening({ grant, outcome: 'redirected', client, openedAt: at(1_000) });
    await grants.recordOpening({
      grant,
      outcome: 'expired',
      client: { address: null, userAgent: null },
      openedAt: at(61_000),
    });

    expect(await openingsOf(grant.id)).toEqual([
      {
        organization_id: scope.organizationId,
        environment: scope.environment,
        grant_id: grant.id,
        outcome: 'redirected',
        opened_at: at(1_000),
        client_address: client.address,
        user_agent: client.userAgent,
      },
      {
        organization_id: scope.organizationId,
        environment: scope.environment,
        grant_id: grant.id,
        outcome: 'expired',
        opened_at: at(61_000),
        client_address: null,
        user_agent: null,
      },
    ]);
    const audit = await dataSource.query(
      `SELECT organization_id, environment, actor, action, subject_type, subject_id, occurred_at, details
       FROM audit_log WHERE subject_id = $1 ORDER BY id`,
      [grant.subjectId],
    );
    expect(audit).toEqual([
      {
        organization_id: scope.organizationId,
        environment: scope.environment,
        actor: `access_grant:${grant.id}`,
        action: 'access_grant.redirected',
        subject_type: 'manual_handoff',
        subject_id: grant.subjectId,
        occurred_at: at(1_000),
        details: { grantId: grant.id, clientAddress: client.address, userAgent: client.userAgent },
      },
      {
        organization_id: scope.organizationId,
        environment: scope.environment,
        actor: `access_grant:${grant.id}`,
        action: 'access_grant.expired',
        subject_type: 'manual_handoff',
        subject_id: grant.subjectId,
        occurred_at: at(61_000),
        details: { grantId: grant.id, clientAddress: null, userAgent: null },
      },
    ]);
  });

  it('keeps an invalid opening without tenant or grant, and only among the openings', async () => {
    const userAgent = `curl/8.5.0 (probe ${uniqueSuffix()})`;

    await grants.recordOpening({
      grant: null,
      outcome: 'invalid',
      client: { address: '198.51.100.23', userAgent },
      openedAt: at(5_000),
    });

    expect(
      await dataSource.query(
        `SELECT organization_id, environment, grant_id, outcome, opened_at, client_address
         FROM access_grant_openings WHERE user_agent = $1`,
        [userAgent],
      ),
    ).toEqual([
      {
        organization_id: null,
        environment: null,
        grant_id: null,
        outcome: 'invalid',
        opened_at: at(5_000),
        client_address: '198.51.100.23',
      },
    ]);
    expect(
      await dataSource.query(`SELECT id FROM audit_log WHERE details->>'userAgent' = $1`, [userAgent]),
    ).toEqual([]);
  });

  it('bound to a transaction, its writes roll back with it', async () => {
    const scope = await createTestTenant(dataSource);
    const grant = newGrant(scope, `mh_${uniqueSuffix()}`);
    const failure = new Error('the surrounding command failed');

    await expect(
      new TypeOrmTransactions(dataSource).run(async (tx) => {
        const inside = grants.on(tx);
        await inside.record(grant);
        await inside.recordOpening({
          grant,
          outcome: 'redirected',
          client: { address: null, userAgent: null },
          openedAt: at(1_000),
        });
        expect(await inside.find(grant.id)).not.toBeNull();
        // Not committed: the pool does not see it yet.
        expect(await grants.find(grant.id)).toBeNull();
        throw failure;
      }),
    ).rejects.toBe(failure);

    expect(await grants.find(grant.id)).toBeNull();
    expect(await openingsOf(grant.id)).toEqual([]);
  });
});
