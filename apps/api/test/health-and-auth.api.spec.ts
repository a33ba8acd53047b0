import { TypeOrmOrganizationDirectory } from '@prior-auth/persistence-postgres';
import request from 'supertest';
import { createTestApp, type TestApp } from './test-app';

describe('health and authentication', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers /health without a key and reports the database', async () => {
    const res = await request(t.app).get('/health').expect(200);
    expect(res.body).toEqual({ status: 'ok', checks: { database: 'up' } });
    expect(res.headers['request-id']).toMatch(/^req_/);
  });

  it.each([
    ['no header', undefined],
    ['a malformed header', 'Token abc'],
    ['an unknown key', 'Bearer pa_sandbox_0000000000000000000000000000000000000000'],
    ['a key of no known format', 'Bearer sk_test_123'],
  ])('refuses %s with 401 in the error envelope', async (_label, header) => {
    const req = request(t.app).get('/v1/anything');
    if (header) req.set('Authorization', header);
    const res = await req.expect(401);
    expect(res.body).toEqual({
      error: { code: 'unauthorized', message: expect.any(String), retryable: false, details: {}, issues: [] },
      requestId: res.headers['request-id'],
    });
  });

  it('refuses a revoked key', async () => {
    const tenant = await t.createTenant();
    const directory = new TypeOrmOrganizationDirectory(t.dataSource);
    const [key] = (await directory.listApiKeys(tenant.organizationId)).filter(
      (k) => k.environment === 'sandbox',
    );
    await directory.revokeApiKey(key!.id);
    await request(t.app)
      .get('/v1/anything')
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .expect(401);
  });

  it('refuses a key of an environment this deployment does not serve', async () => {
    const productionOnly = await createTestApp({ servedEnvironments: ['production'] });
    try {
      const tenant = await productionOnly.createTenant();
      await request(productionOnly.app)
        .get('/v1/x')
        .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
        .expect(401);
      await request(productionOnly.app)
        .get('/v1/x')
        .set('Authorization', `Bearer ${tenant.keys.production}`)
        .expect(404);
    } finally {
      await productionOnly.close();
    }
  });

  it('answers unknown routes with 404 not_found and wrong methods with 405', async () => {
    const tenant = await t.createTenant();
    const res = await request(t.app)
      .get('/v1/nope')
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .expect(404);
    expect(res.body.error.code).toBe('not_found');
    const wrong = await request(t.app).post('/health').expect(405);
    expect(wrong.body.error.code).toBe('method_not_allowed');
  });

  it('sets security headers and never exposes the framework', async () => {
    const res = await request(t.app).get('/health');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});
