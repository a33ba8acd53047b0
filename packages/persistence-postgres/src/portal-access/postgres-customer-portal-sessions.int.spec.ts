import type { CustomerPortalSessionKey, TenantScope } from '@prior-auth/domain';
import { CredentialsCipher, parseCredentialsKeys } from '@prior-auth/platform';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { arrange, type Scenario } from '../authorization/testing/authorization-builders';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, testCursors } from '../unit-of-work/testing/test-tenants';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';
import { PostgresCustomerPortalSessions } from './postgres-customer-portal-sessions';

let dataSource: DataSource;
let unitOfWork: TypeOrmUnitOfWork;

const newCipher = (): CredentialsCipher => {
  const keys = parseCredentialsKeys(randomBytes(32).toString('base64'));
  if (typeof keys === 'string') throw new Error(keys);
  return new CredentialsCipher(keys);
};

beforeAll(async () => {
  dataSource = await openTestDataSource(2);
  unitOfWork = new TypeOrmUnitOfWork(dataSource, { cursors: testCursors() });
});
afterAll(() => dataSource.destroy());

/** A stored case in the scenario's state, and its session key. */
async function storedCase(scope: TenantScope, scenario: Scenario): Promise<CustomerPortalSessionKey> {
  const arranged = arrange(scope, scenario);
  await unitOfWork.run(scope, async (tx) => {
    for (const file of arranged.files) await tx.files.save(file);
    await tx.authorizations.save(arranged.authorization);
  });
  return { ...scope, authorizationId: arranged.authorization.id };
}

const rowsOf = async (key: CustomerPortalSessionKey) =>
  (await dataSource.query(
    `SELECT row_to_json(s)::text AS json, key_id FROM customer_portal_sessions s
      WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3`,
    [key.organizationId, key.environment, key.authorizationId],
  )) as Array<{ json: string; key_id: string }>;

const HOUR_MS = 60 * 60 * 1000;
const state = (cookie: string) =>
  JSON.stringify({ cookies: [{ name: 'portal_session', value: cookie }], origins: [] });

describe('PostgresCustomerPortalSessions', () => {
  it('keeps a case session sealed, opens it for the case until it expires, and replaces it', async () => {
    const cipher = newCipher();
    const sessions = new PostgresCustomerPortalSessions(dataSource, cipher);
    const key = await storedCase(await createTestTenant(dataSource), 'requires_action');
    const cookie = `cookie-${randomBytes(12).toString('hex')}`;
    const now = new Date();

    await sessions.keep(key, state(cookie), new Date(now.getTime() + HOUR_MS));
    expect(await sessions.find(key, now)).toBe(state(cookie));
    const [row] = await rowsOf(key);
    expect(row!.key_id).toBe(cipher.currentKeyId);
    expect(row!.json).not.toContain(cookie);
    expect(row!.json).not.toContain('portal_session');

    // Another worker with the same key opens it; a renewal replaces it.
    const elsewhere = new PostgresCustomerPortalSessions(dataSource, cipher);
    expect(await elsewhere.find(key, now)).toBe(state(cookie));
    await elsewhere.keep(key, state(`${cookie}-renewed`), new Date(now.getTime() + HOUR_MS));
    expect(await sessions.find(key, now)).toBe(state(`${cookie}-renewed`));
    expect(await rowsOf(key)).toHaveLength(1);

    // Past its lifetime it opens no more.
    expect(await sessions.find(key, new Date(now.getTime() + 2 * HOUR_MS))).toBeNull();
  });

  it('opens a session only for its own case, and drops one its key can no longer open', async () => {
    const cipher = newCipher();
    const sessions = new PostgresCustomerPortalSessions(dataSource, cipher);
    const scope = await createTestTenant(dataSource);
    const [first, second] = [await storedCase(scope, 'processing'), await storedCase(scope, 'processing')];
    const now = new Date();
    await sessions.keep(first!, state('first'), new Date(now.getTime() + HOUR_MS));
    await sessions.keep(second!, state('second'), new Date(now.getTime() + HOUR_MS));
    // A sealed session copied to another case's row does not open there, and that row is dropped.
    await dataSource.query(
      `UPDATE customer_portal_sessions SET state_sealed = (SELECT state_sealed FROM customer_portal_sessions
          WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3)
        WHERE organization_id = $1 AND environment = $2 AND authorization_id = $4`,
      [scope.organizationId, scope.environment, first!.authorizationId, second!.authorizationId],
    );
    expect(await sessions.find(second!, now)).toBeNull();
    expect(await rowsOf(second!)).toHaveLength(0);
    // A worker on another key cannot open the first: it is worth nothing and goes.
    expect(await new PostgresCustomerPortalSessions(dataSource, newCipher()).find(first!, now)).toBeNull();
    expect(await rowsOf(first!)).toHaveLength(0);
  });

  it('keeps nothing for a case that is not stored, and forgets a session', async () => {
    const sessions = new PostgresCustomerPortalSessions(dataSource, newCipher());
    const scope = await createTestTenant(dataSource);
    const missing = { ...scope, authorizationId: `auth_missing_${randomBytes(6).toString('hex')}` };
    await sessions.keep(missing, state('x'), new Date(Date.now() + HOUR_MS));
    expect(await rowsOf(missing)).toHaveLength(0);

    const key = await storedCase(scope, 'waiting_on_payer');
    await sessions.keep(key, state('y'), new Date(Date.now() + HOUR_MS));
    await sessions.forget(key);
    expect(await rowsOf(key)).toHaveLength(0);
    expect(await sessions.find(key, new Date())).toBeNull();
  });

  it('purges expired sessions and those of cases done with the payer, and nothing else', async () => {
    const sessions = new PostgresCustomerPortalSessions(dataSource, newCipher());
    const scope = await createTestTenant(dataSource);
    const now = new Date();
    const later = new Date(now.getTime() + HOUR_MS);
    const live = await storedCase(scope, 'waiting_on_payer');
    const expired = await storedCase(scope, 'waiting_on_payer');
    const completed = await storedCase(scope, 'completed');
    const canceled = await storedCase(scope, 'canceled');
    await sessions.keep(live, state('live'), later);
    await sessions.keep(expired, state('expired'), new Date(now.getTime() - 1));
    await sessions.keep(completed, state('completed'), later);
    await sessions.keep(canceled, state('canceled'), later);

    // Other tests' rows may go in the same purge: at least these three went.
    expect(await sessions.purgeExpired(now)).toBeGreaterThanOrEqual(3);
    for (const gone of [expired, completed, canceled]) expect(await rowsOf(gone)).toHaveLength(0);
    expect(await sessions.find(live, now)).toBe(state('live'));
  });
});
