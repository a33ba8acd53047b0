import request from 'supertest';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

describe('payer catalog and routes', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant();
    other = await t.createTenant();
  });
  afterAll(() => t.close());

  const get = (path: string, key = tenant.keys.sandbox) =>
    request(t.app).get(path).set('Authorization', `Bearer ${key}`);

  it('lists real payers with the spec fields, searchable by alias', async () => {
    const res = await get('/v1/payers?q=uhc').expect(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({
        id: 'payer_uhc',
        displayName: 'UnitedHealthcare',
        supportedStates: expect.arrayContaining(['CA']),
        supportedServiceTypes: expect.any(Array),
        aliases: expect.arrayContaining(['UHC']),
        status: 'active',
      }),
    ]);
    expect(res.body.pagination).toEqual({ nextCursor: null });
  });

  it('filters by state and service type and pages with a cursor until the end', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const path: string = `/v1/payers?state=CA&serviceType=drug&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await get(path).expect(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      for (const payer of res.body.data) {
        expect(payer.supportedStates).toContain('CA');
        expect(payer.supportedServiceTypes).toContain('drug');
        seen.push(payer.id);
      }
      cursor = res.body.pagination.nextCursor;
    } while (cursor);
    expect(seen.length).toBeGreaterThan(2);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).not.toContain('payer_molina'); // no drug routes
  });

  it('refuses a tampered cursor, a cursor of another tenant and a bad limit with 422 at the query field', async () => {
    const first = await get('/v1/payers?limit=1').expect(200);
    const cursor = first.body.pagination.nextCursor as string;
    const tampered = await get(`/v1/payers?limit=1&cursor=${encodeURIComponent(`x${cursor}`)}`).expect(422);
    expect(tampered.body.error).toMatchObject({
      code: 'request_validation_failed',
      issues: [{ location: ['query', 'cursor'] }],
    });
    await get(`/v1/payers?limit=1&cursor=${encodeURIComponent(cursor)}`, other.keys.sandbox).expect(422);
    await get(`/v1/payers?limit=1&state=CA&cursor=${encodeURIComponent(cursor)}`).expect(422);
    for (const limit of ['0', '101', '2.5', 'ten']) {
      const res = await get(`/v1/payers?limit=${limit}`).expect(422);
      expect(res.body.error.issues).toEqual([expect.objectContaining({ location: ['query', 'limit'] })]);
    }
    const unknown = await get('/v1/payers?color=blue').expect(422);
    expect(unknown.body.error.issues).toEqual([
      expect.objectContaining({ location: ['query', 'color'], errorType: 'unknown_field' }),
    ]);
  });

  it('retrieves one payer, and answers payer_not_found for an unknown id', async () => {
    await get('/v1/payers/payer_aetna').expect(200, /Aetna/);
    const res = await get('/v1/payers/payer_nope').expect(404);
    expect(res.body.error.code).toBe('payer_not_found');
  });

  it('lists routes with their questionnaire (patient group first) and document requirements', async () => {
    const res = await get(
      '/v1/prior-auth/routes?payerId=payer_uhc&insuranceState=ca&serviceCode=E0601',
    ).expect(200);
    expect(res.body.data).toHaveLength(1);
    const route = res.body.data[0];
    expect(route.templateSelection).toEqual({
      payerId: 'payer_uhc',
      insuranceState: 'CA',
      serviceType: 'outpatient',
      serviceCode: 'E0601',
      serviceCodeSystem: 'hcpcs',
    });
    const linkIds = route.questionnaire.flatMap((g: { items: Array<{ linkId: string }> }) =>
      g.items.map((i) => i.linkId),
    );
    expect(linkIds).toEqual(
      expect.arrayContaining([
        'patient.memberId',
        'patient.firstName',
        'patient.lastName',
        'patient.birthDate',
      ]),
    );
    expect(route.documentRequirements.length).toBeGreaterThan(0);
    expect(route.portalAuthModes).toContain('automated');
  });
});

describe('sandbox scenarios', () => {
  let t: TestApp;
  let tenant: TestTenant;
  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  it('lists every scenario of decision 0026 for a sandbox key', async () => {
    const res = await request(t.app)
      .get('/v1/sandbox/scenarios')
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .expect(200);
    const scenarios = res.body.data.map((s: { scenario: string }) => s.scenario);
    expect(scenarios).toEqual(
      expect.arrayContaining([
        'approved',
        'denied',
        'modified',
        'not_required',
        'failed',
        'pending',
        'more_info',
        'portal_question',
        'manual_handoff',
      ]),
    );
    for (const scenario of res.body.data) expect(scenario.memberId).toEqual(expect.any(String));
    expect(res.body.pagination).toEqual({ nextCursor: null });
  });

  it('does not exist for a production key', async () => {
    const res = await request(t.app)
      .get('/v1/sandbox/scenarios')
      .set('Authorization', `Bearer ${tenant.keys.production}`)
      .expect(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
