import { loadConfig } from '@prior-auth/platform';
import request from 'supertest';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * docs/decisions/0035-rate-limits-cors-read-audit-and-keys.md: no browser origin by default, an allow-list by
 * configuration, and preflights answered without an API key. The APIs themselves are driven (`api`): a
 * preflight's empty 204 is no operation of the OpenAPI document.
 */
const ALLOWED = 'https://app.clinic.example';
const PATH = '/v1/prior-auth/authorizations';

const preflight = (t: TestApp, origin: string) =>
  request(t.api)
    .options(PATH)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST')
    .set('Access-Control-Request-Headers', 'authorization, content-type, idempotency-key');

describe('CORS (decision 0035)', () => {
  let closed: TestApp;
  let open: TestApp;
  let tenant: TestTenant;
  beforeAll(async () => {
    closed = await createTestApp();
    open = await createTestApp({ env: { CORS_ALLOWED_ORIGINS: `${ALLOWED}, http://localhost:5173` } });
    tenant = await open.createTenant();
  });
  afterAll(async () => {
    await closed.close();
    await open.close();
  });

  it('answers a preflight without a key and allows no origin by default', async () => {
    const res = await preflight(closed, ALLOWED).expect(204);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
    expect(res.headers['vary']).toMatch(/Origin/);
    const get = await request(closed.api)
      .get(PATH)
      .set('Origin', ALLOWED)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows the configured origins, and only them', async () => {
    const res = await preflight(open, ALLOWED).expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    expect(res.headers['access-control-allow-headers']).toMatch(/Idempotency-Key/);
    expect(res.headers['access-control-allow-headers']).toMatch(/If-Match/);
    const other = await preflight(open, 'https://evil.example').expect(204);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();

    const get = await request(open.api)
      .get(PATH)
      .set('Origin', 'http://localhost:5173')
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .expect(200);
    expect(get.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(get.headers['access-control-expose-headers']).toMatch(/Request-Id/);
    expect(get.headers['access-control-expose-headers']).toMatch(/ETag/);
  });

  it('still asks the real request for its key', async () => {
    const res = await request(open.api).get(PATH).set('Origin', ALLOWED).expect(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('refuses a configured value that is not an origin, naming the variable', () => {
    for (const value of ['https://app.clinic.example/path', 'app.clinic.example', '*']) {
      expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: value })).toThrow(/CORS_ALLOWED_ORIGINS/);
    }
    expect(loadConfig({}).CORS_ALLOWED_ORIGINS).toEqual([]);
  });
});
