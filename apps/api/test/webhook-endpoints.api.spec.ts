import {
  CURRENT_API_VERSION,
  DnsHostResolver,
  LEGACY_API_VERSION,
  RandomIdGenerator,
  generateApiKey,
} from '@prior-auth/platform';
import type { HostResolver } from '@prior-auth/domain';
import { TypeOrmOrganizationDirectory } from '@prior-auth/persistence-postgres';
import request from 'supertest';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * Webhook endpoints (spec decision 22, docs/decisions/0031-events-and-webhooks.md): CRUD, the secret shown
 * once and stored sealed, rotation, and the address rule of production endpoints.
 */

const PATH = '/v1/webhook-endpoints';

/** Real DNS, plus two names of our own that resolve to a private and a link-local address. */
const resolver: HostResolver = {
  resolve: async (host) => {
    if (host === 'intranet.hooks.test') return ['10.0.0.1'];
    if (host === 'metadata.hooks.test') return ['93.184.216.34', '169.254.169.254'];
    if (host === 'public.hooks.test') return ['93.184.216.34'];
    return new DnsHostResolver().resolve(host);
  },
};

let t: TestApp;
let tenant: TestTenant;
let stranger: TestTenant;

beforeAll(async () => {
  t = await createTestApp({ hostResolver: resolver });
  [tenant, stranger] = await Promise.all([t.createTenant(), t.createTenant()]);
});
afterAll(() => t.close());

const as = (key: string) => ({
  post: (path: string, body?: object) => {
    const req = request(t.app).post(path).set('Authorization', `Bearer ${key}`);
    return body === undefined ? req : req.send(body);
  },
  get: (path: string) => request(t.app).get(path).set('Authorization', `Bearer ${key}`),
  patch: (path: string, body: object, ifMatch?: string) => {
    const req = request(t.app).patch(path).set('Authorization', `Bearer ${key}`);
    if (ifMatch !== undefined) req.set('If-Match', ifMatch);
    return req.send(body);
  },
  delete: (path: string) => request(t.app).delete(path).set('Authorization', `Bearer ${key}`),
});

describe('webhook endpoints', () => {
  it('creates an endpoint with its secret shown once, stored sealed; lists, reads, changes and deletes it', async () => {
    const sandbox = as(tenant.keys.sandbox);
    const created = await sandbox
      .post(PATH, {
        url: 'http://localhost:9999/hooks',
        enabledEvents: ['authorization.completed'],
        description: 'local receiver',
      })
      .expect(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^we_/),
      url: 'http://localhost:9999/hooks',
      enabledEvents: ['authorization.completed'],
      disabled: false,
      description: 'local receiver',
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(created.headers.location).toBe(`${PATH}/${created.body.id}`);
    const secret = created.body.secret as string;

    // The secret never comes back, and is not stored in clear.
    const one = await sandbox.get(`${PATH}/${created.body.id}`).expect(200);
    expect(one.body).not.toHaveProperty('secret');
    const rows = await t.dataSource.query(
      'SELECT secrets::text AS secrets FROM webhook_endpoints WHERE id = $1',
      [created.body.id],
    );
    expect(rows[0].secrets).not.toContain(secret.slice('whsec_'.length));
    const listed = await sandbox.get(`${PATH}?limit=100`).expect(200);
    expect((listed.body.data as Array<{ id: string }>).map((e) => e.id)).toContain(created.body.id);

    const changed = await sandbox
      .patch(`${PATH}/${created.body.id}`, { enabledEvents: ['*'], disabled: true }, '"1"')
      .expect(200);
    expect(changed.body).toMatchObject({ enabledEvents: ['*'], disabled: true, version: 2 });
    const stale = await sandbox.patch(`${PATH}/${created.body.id}`, { disabled: false }, '"1"').expect(409);
    expect(stale.body.error.code).toBe('version_conflict');

    // Another organization, or the other environment, sees nothing.
    await as(stranger.keys.sandbox).get(`${PATH}/${created.body.id}`).expect(404);
    await as(tenant.keys.production).get(`${PATH}/${created.body.id}`).expect(404);

    await sandbox.delete(`${PATH}/${created.body.id}`).expect(204);
    const gone = await sandbox.get(`${PATH}/${created.body.id}`).expect(404);
    expect(gone.body.error.code).toBe('webhook_endpoint_not_found');
  });

  it('pins an API version for its deliveries: given, else the request’s (header, else the key’s)', async () => {
    const key = generateApiKey('sandbox');
    await new TypeOrmOrganizationDirectory(t.dataSource).createApiKey({
      id: new RandomIdGenerator().newId('key'),
      organizationId: tenant.organizationId,
      environment: 'sandbox',
      keyHash: key.hash,
      displayPrefix: key.displayPrefix,
      apiVersion: LEGACY_API_VERSION,
    });
    const body = { url: 'http://localhost:9999/versioned', enabledEvents: ['*'] };

    const byDefault = await as(tenant.keys.sandbox).post(PATH, body).expect(201);
    expect(byDefault.body.apiVersion).toBe(CURRENT_API_VERSION);
    const pinnedKey = await as(key.secret).post(PATH, body).expect(201);
    expect(pinnedKey.body.apiVersion).toBe(LEGACY_API_VERSION);
    const header = await as(key.secret)
      .post(PATH, body)
      .set('Prior-Auth-Version', CURRENT_API_VERSION)
      .expect(201);
    expect(header.body.apiVersion).toBe(CURRENT_API_VERSION);
    const given = await as(tenant.keys.sandbox)
      .post(PATH, { ...body, apiVersion: LEGACY_API_VERSION })
      .expect(201);
    expect(given.body.apiVersion).toBe(LEGACY_API_VERSION);
    const read = await as(tenant.keys.sandbox).get(`${PATH}/${given.body.id}`).expect(200);
    expect(read.body.apiVersion).toBe(LEGACY_API_VERSION);

    const changed = await as(tenant.keys.sandbox)
      .patch(`${PATH}/${given.body.id}`, { apiVersion: CURRENT_API_VERSION })
      .expect(200);
    expect(changed.body).toMatchObject({ apiVersion: CURRENT_API_VERSION, version: 2 });
    const unknown = await as(tenant.keys.sandbox)
      .post(PATH, { ...body, apiVersion: '2023-01-01' })
      .expect(422);
    expect(unknown.body.error.code).toBe('request_validation_failed');
  });

  it('rotates the secret: a new one shown once, the previous kept signing for 24 hours', async () => {
    const sandbox = as(tenant.keys.sandbox);
    const created = await sandbox
      .post(PATH, { url: 'http://localhost:9999/a', enabledEvents: ['*'] })
      .expect(201);
    const rotated = await sandbox.post(`${PATH}/${created.body.id}/rotate-secret`).expect(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    const rows = await t.dataSource.query('SELECT secrets FROM webhook_endpoints WHERE id = $1', [
      created.body.id,
    ]);
    const secrets = rows[0].secrets as Array<{ expiresAt: string | null }>;
    expect(secrets).toHaveLength(2);
    expect(secrets[0]!.expiresAt).toBeNull();
    const overlap = Date.parse(secrets[1]!.expiresAt!) - Date.parse(rotated.body.updatedAt as string);
    expect(overlap).toBe(24 * 60 * 60 * 1000);
  });

  it.each([
    ['http://127.0.0.1/hooks', 'not https'],
    ['https://127.0.0.1/hooks', 'loopback'],
    ['https://10.0.0.1/hooks', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://[::1]/hooks', 'IPv6 loopback'],
    ['https://localhost/hooks', 'a name resolving to loopback'],
    ['https://intranet.hooks.test/hooks', 'a name resolving to a private address'],
    ['https://metadata.hooks.test/hooks', 'a name with one link-local address among others'],
    ['https://user:pass@public.hooks.test/hooks', 'credentials in the URL'],
    ['not a url', 'not a URL'],
  ])('refuses the production endpoint %s (%s) with 422', async (url) => {
    const res = await as(tenant.keys.production)
      .post(PATH, { url, enabledEvents: ['*'] })
      .expect(422);
    expect(res.body.error).toMatchObject({ code: 'webhook_url_not_allowed', message: expect.any(String) });
  });

  it('accepts a public https production endpoint, and re-checks a changed URL', async () => {
    const production = as(tenant.keys.production);
    const created = await production
      .post(PATH, { url: 'https://public.hooks.test/hooks', enabledEvents: ['authorization.completed'] })
      .expect(201);
    const refused = await production
      .patch(`${PATH}/${created.body.id}`, { url: 'https://intranet.hooks.test/hooks' })
      .expect(422);
    expect(refused.body.error.code).toBe('webhook_url_not_allowed');
  });

  it('validates the body: event types, unknown fields', async () => {
    const sandbox = as(tenant.keys.sandbox);
    const unknownType = await sandbox
      .post(PATH, { url: 'http://localhost/x', enabledEvents: ['authorization.exploded'] })
      .expect(422);
    expect(unknownType.body.error.code).toBe('request_validation_failed');
    await sandbox.post(PATH, { url: 'http://localhost/x', enabledEvents: [] }).expect(422);
    await sandbox.post(PATH, { url: 'http://localhost/x', enabledEvents: ['*'], secret: 'mine' }).expect(422);
  });
});
