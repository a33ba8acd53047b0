import { TypeOrmOrganizationDirectory } from '@prior-auth/persistence-postgres';
import request from 'supertest';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/** The status of one authenticated request (404: authenticated, no such route; 401: refused). */
const statusWith = async (app: TestApp, key: string): Promise<number> =>
  (await request(app.api).get('/v1/no-such-route').set('Authorization', `Bearer ${key}`)).status;

async function revokeSandboxKey(app: TestApp, tenant: TestTenant): Promise<void> {
  const directory = new TypeOrmOrganizationDirectory(app.dataSource);
  const [key] = (await directory.listApiKeys(tenant.organizationId)).filter(
    (k) => k.environment === 'sandbox',
  );
  await directory.revokeApiKey(key!.id);
}

/** Polls until the instance refuses the key; returns how long that took after `since`. */
async function refusedAfter(app: TestApp, key: string, since: number, deadlineMs: number): Promise<number> {
  for (;;) {
    if ((await statusWith(app, key)) === 401) return Date.now() - since;
    if (Date.now() - since > deadlineMs) throw new Error(`still accepted after ${deadlineMs} ms`);
    await new Promise((done) => setImmediate(done));
  }
}

describe('API-key cache (docs/performance.md)', () => {
  const TTL_MS = 400;
  let first: TestApp;
  let second: TestApp;
  let longLived: TestApp;
  beforeAll(async () => {
    first = await createTestApp({ apiKeyCacheTtlMs: TTL_MS });
    second = await createTestApp({ apiKeyCacheTtlMs: TTL_MS });
    longLived = await createTestApp({ apiKeyCacheTtlMs: 60_000 });
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await longLived.close();
  });

  it('serves a key it found active from memory until its time-to-live ends', async () => {
    const tenant = await longLived.createTenant();
    expect(await statusWith(longLived, tenant.keys.sandbox)).toBe(404);
    await revokeSandboxKey(longLived, tenant);
    // Within the bound the cached key still authenticates: the database was not asked again.
    expect(await statusWith(longLived, tenant.keys.sandbox)).toBe(404);
  });

  it('refuses a revoked key in every API instance within the time-to-live', async () => {
    const tenant = await first.createTenant();
    expect(await statusWith(first, tenant.keys.sandbox)).toBe(404);
    expect(await statusWith(second, tenant.keys.sandbox)).toBe(404);
    await revokeSandboxKey(first, tenant);
    const revokedAt = Date.now();
    // A margin over the time-to-live for a busy machine; the refusal itself is observed, never slept on.
    const bound = TTL_MS + 1_000;
    expect(await refusedAfter(first, tenant.keys.sandbox, revokedAt, bound)).toBeLessThanOrEqual(bound);
    expect(await refusedAfter(second, tenant.keys.sandbox, revokedAt, bound)).toBeLessThanOrEqual(bound);
  });

  it('never caches an unknown key: a key created after a refusal works at once', async () => {
    const tenant = await first.createTenant();
    expect(await statusWith(first, `${tenant.keys.sandbox}x`)).toBe(401);
    expect(await statusWith(first, tenant.keys.sandbox)).toBe(404);
  });
});
