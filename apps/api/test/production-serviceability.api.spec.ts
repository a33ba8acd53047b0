import request from 'supertest';
import { client, createBody, CPAP_SELECTION, newKey } from './authorization-helpers';
import { connectPayerPortal, storePortalCredentials } from './portal-access-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/**
 * Decisions 0030 and 0021: a production route is serviceable only through a connected payer portal and, for
 * `automated`, the organization's stored credentials. Only this file connects payer_aetna and payer_cigna.
 */
describe('production serviceability', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const aetna = { ...CPAP_SELECTION, payerId: 'payer_aetna' };
  const cigna = { ...CPAP_SELECTION, payerId: 'payer_cigna' };
  const routes = (key: string, payerId: string) =>
    request(t.app)
      .get(`/v1/prior-auth/routes?payerId=${payerId}&insuranceState=CA&serviceCode=E0601`)
      .set('Authorization', `Bearer ${key}`)
      .expect(200)
      .then((res) => res.body.data as { serviceability: unknown; portalAuthModes: string[] }[]);
  const create = (tenant: TestTenant, templateSelection: object, extra: object = {}) =>
    client(t.app, tenant.keys.production).create(
      createBody(tenant, { templateSelection, ...extra }),
      newKey(),
    );

  it('refuses create with 409 and says why on the routes, until the connection and credentials exist', async () => {
    const tenant = await t.createTenant();
    const other = await t.createTenant();

    // Sandbox: the simulated payer website serves every route.
    expect((await routes(tenant.keys.sandbox, 'payer_aetna'))[0]!.serviceability).toEqual({
      serviceable: true,
      reason: null,
      portalAuthModes: ['automated'],
    });
    await client(t.app, tenant.keys.sandbox)
      .create(createBody(tenant, { templateSelection: aetna }), newKey())
      .expect(201);

    // No portal connection for the payer.
    const unconnected = await create(tenant, aetna).expect(409);
    expect(unconnected.body.error).toMatchObject({
      code: 'unsupported_template_selection',
      retryable: false,
      details: { reason: 'portal_connection_missing' },
    });
    expect((await routes(tenant.keys.production, 'payer_aetna'))[0]!.serviceability).toEqual({
      serviceable: false,
      reason: 'portal_connection_missing',
      portalAuthModes: [],
    });

    // Connected, but no credentials: automated (the only mode of this route) cannot sign in.
    await connectPayerPortal(t.dataSource, 'payer_aetna');
    const noCredentials = await create(tenant, aetna).expect(409);
    expect(noCredentials.body.error).toMatchObject({
      code: 'unsupported_template_selection',
      details: { reason: 'portal_credentials_missing', portalAuthMode: 'automated' },
    });
    expect((await routes(tenant.keys.production, 'payer_aetna'))[0]!.serviceability).toMatchObject({
      serviceable: false,
      reason: 'portal_credentials_missing',
    });

    // The organization's credentials make it serviceable for that organization only.
    await storePortalCredentials(t.dataSource, tenant.organizationId, 'payer_aetna');
    const created = await create(tenant, aetna).expect(201);
    expect(created.body.portalAuthMode).toBe('automated');
    expect((await routes(tenant.keys.production, 'payer_aetna'))[0]!.serviceability).toEqual({
      serviceable: true,
      reason: null,
      portalAuthModes: ['automated'],
    });
    await create(other, aetna).expect(409);
    expect((await routes(other.keys.production, 'payer_aetna'))[0]!.serviceability).toMatchObject({
      serviceable: false,
      reason: 'portal_credentials_missing',
    });
  });

  it('a route that also offers customer_login is served without credentials, in that mode', async () => {
    const tenant = await t.createTenant();
    await connectPayerPortal(t.dataSource, 'payer_cigna');
    expect((await routes(tenant.keys.production, 'payer_cigna'))[0]!.serviceability).toEqual({
      serviceable: true,
      reason: null,
      portalAuthModes: ['customer_login'],
    });
    const created = await create(tenant, cigna).expect(201);
    expect(created.body.portalAuthMode).toBe('customer_login');
    const automated = await create(tenant, cigna, { portalAuthMode: 'automated' }).expect(409);
    expect(automated.body.error.details).toMatchObject({ reason: 'portal_credentials_missing' });
  });

  it('the routes of the list carry serviceability, also without a payer filter', async () => {
    const tenant = await t.createTenant();
    const res = await request(t.app)
      .get('/v1/prior-auth/routes?limit=5')
      .set('Authorization', `Bearer ${tenant.keys.production}`)
      .expect(200);
    for (const route of res.body.data) {
      expect(Object.keys(route.serviceability).sort()).toEqual(['portalAuthModes', 'reason', 'serviceable']);
      expect([null, 'portal_connection_missing', 'portal_credentials_missing']).toContain(
        route.serviceability.reason,
      );
      expect(route.serviceability.serviceable).toBe(route.serviceability.reason === null);
    }
  });
});
