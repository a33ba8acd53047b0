import { rotateApiKey } from '@prior-auth/platform';
import { TypeOrmOrganizationDirectory } from '@prior-auth/persistence-postgres';
import request from 'supertest';
import { createTestApp, type TestApp } from './test-app';

/*
 * docs/decisions/0035-rate-limits-cors-read-audit-and-keys.md: a rotated key keeps working until its overlap
 * ends, its replacement works at once, and the API notes when each key was last used. Tests wait for what
 * they check to be observable; they never sleep.
 */
const TTL_MS = 300;
const statusWith = async (t: TestApp, key: string) =>
  (await request(t.api).get('/v1/sandbox/scenarios').set('Authorization', `Bearer ${key}`)).status;

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((next) => setTimeout(next, 25));
  }
}

describe('key rotation and last use (decision 0035)', () => {
  let t: TestApp;
  let directory: TypeOrmOrganizationDirectory;
  beforeAll(async () => {
    t = await createTestApp({ apiKeyCacheTtlMs: TTL_MS });
    directory = new TypeOrmOrganizationDirectory(t.dataSource);
  });
  afterAll(() => t.close());

  const sandboxKeyId = async (organizationId: string) =>
    (await directory.listApiKeys(organizationId)).find((key) => key.environment === 'sandbox')!.id;

  it('serves both secrets during the overlap and only the new one after it', async () => {
    const tenant = await t.createTenant();
    const oldKeyId = await sandboxKeyId(tenant.organizationId);
    expect(await statusWith(t, tenant.keys.sandbox)).toBe(200);
    const rotated = await rotateApiKey(directory, oldKeyId, 60_000);
    expect(await statusWith(t, rotated.secret)).toBe(200);
    expect(await statusWith(t, tenant.keys.sandbox)).toBe(200);
    // Its replacement rotated with no overlap: refused within the key cache's time-to-live.
    const again = await rotateApiKey(directory, rotated.id, 0);
    await waitFor(
      () => statusWith(t, rotated.secret),
      (status) => status === 401,
      'rotated key',
    );
    expect(await statusWith(t, again.secret)).toBe(200);
  });

  it('notes when a key was last used', async () => {
    const tenant = await t.createTenant();
    const keyId = await sandboxKeyId(tenant.organizationId);
    expect(
      (await directory.listApiKeys(tenant.organizationId)).find((k) => k.id === keyId)!.lastUsedAt,
    ).toBeNull();
    const before = Date.now();
    expect(await statusWith(t, tenant.keys.sandbox)).toBe(200);
    const used = await waitFor(
      async () =>
        (await directory.listApiKeys(tenant.organizationId)).find((k) => k.id === keyId)!.lastUsedAt,
      (lastUsedAt) => lastUsedAt !== null,
      'last used',
    );
    expect(used!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
  });
});
