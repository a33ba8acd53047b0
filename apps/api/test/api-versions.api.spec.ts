import { TypeOrmOrganizationDirectory } from '@prior-auth/persistence-postgres';
import { generateApiKey, RandomIdGenerator } from '@prior-auth/platform';
import request from 'supertest';
import {
  ALT_BASE,
  BASE,
  COMPLETE_CPAP_ANSWERS,
  CPAP_DOCUMENT_TYPES,
  CPAP_SELECTION,
  client,
  createBody,
  newKey,
  readyToConfirm,
  sandboxScope,
  type Client,
} from './authorization-helpers';
import { pipeline } from './pipeline-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * API versions and the legacy create/answers shape (decision 0029). Every response is
 * also checked against the OpenAPI document by the contract hook of the test app.
 */

const LEGACY = '2024-01-01';
const CURRENT = '2025-01-01';
const HEADER = 'Prior-Auth-Version';

let t: TestApp;
let tenant: TestTenant;
let c: Client;
/** A sandbox key of the same organization pinned to the legacy version. */
let pinnedKey: string;

/** A client whose every request sends `Prior-Auth-Version: version`. */
function versioned(apiKey: string, version: string | null) {
  const auth = { Authorization: `Bearer ${apiKey}` };
  const withVersion = (req: request.Test) => (version === null ? req : req.set(HEADER, version));
  return {
    create: (body: unknown, key: string | null = null, base = BASE) => {
      const req = withVersion(request(t.app).post(base).set(auth));
      if (key !== null) req.set('Idempotency-Key', key);
      return req.send(body as object);
    },
    get: (id: string, base = BASE) => withVersion(request(t.app).get(`${base}/${id}`).set(auth)),
    list: (query = '', base = BASE) => withVersion(request(t.app).get(`${base}${query}`).set(auth)),
    patch: (id: string, ifMatch: string, body: unknown, base = BASE) =>
      withVersion(request(t.app).patch(`${base}/${id}/answers`).set(auth).set('If-Match', ifMatch)).send(
        body as object,
      ),
    attach: (id: string, ifMatch: string, body: unknown, base = BASE) =>
      withVersion(
        request(t.app)
          .post(`${base}/${id}/attachments`)
          .set(auth)
          .set('If-Match', ifMatch)
          .set('Idempotency-Key', newKey()),
      ).send(body as object),
    detach: (id: string, attachmentId: string, ifMatch: string, base = BASE) =>
      withVersion(
        request(t.app).delete(`${base}/${id}/attachments/${attachmentId}`).set(auth).set('If-Match', ifMatch),
      ),
    confirm: (id: string, ifMatch: string, body: unknown, base = BASE) => {
      const req = withVersion(
        request(t.app)
          .post(`${base}/${id}/confirm`)
          .set(auth)
          .set('If-Match', ifMatch)
          .set('Idempotency-Key', newKey()),
      );
      return body === undefined ? req : req.send(body as object);
    },
    cancel: (id: string, ifMatch: string, base = BASE) =>
      withVersion(
        request(t.app)
          .post(`${base}/${id}/cancel`)
          .set(auth)
          .set('If-Match', ifMatch)
          .set('Idempotency-Key', newKey()),
      ),
  };
}

const legacyBody = (overrides: Record<string, unknown> = {}) => ({
  providerNpi: tenant.npi,
  templateSelection: { ...CPAP_SELECTION, serviceCodeSystem: 'HCPCS' },
  ...overrides,
});

const LEGACY_FIELDS = [
  'attachments',
  'completedAt',
  'confirmation',
  'createdAt',
  'decision',
  'id',
  'outcome',
  'payer',
  'providerNpi',
  'questionnaire',
  'questionnaireResponse',
  'requirements',
  'status',
  'submittedAt',
  'templateSelection',
  'updatedAt',
  'version',
];

beforeAll(async () => {
  t = await createTestApp();
  tenant = await t.createTenant();
  c = client(t.app, tenant.keys.sandbox);
  const key = generateApiKey('sandbox');
  await new TypeOrmOrganizationDirectory(t.dataSource).createApiKey({
    id: new RandomIdGenerator().newId('key'),
    organizationId: tenant.organizationId,
    environment: 'sandbox',
    keyHash: key.hash,
    displayPrefix: key.displayPrefix,
    apiVersion: LEGACY,
  });
  pinnedKey = key.secret;
});
afterAll(async () => {
  await t.close();
});

describe('the version of a request', () => {
  it('is the current one by default, named on every /v1 response, errors included', async () => {
    const created = await c.create(createBody(tenant)).expect(201);
    expect(created.headers['prior-auth-version']).toBe(CURRENT);
    expect(created.body.status).toBe('requires_input');
    const missing = await c.get('auth_missing').expect(404);
    expect(missing.headers['prior-auth-version']).toBe(CURRENT);
    const unauthenticated = await request(t.app).get(BASE).set(HEADER, LEGACY).expect(401);
    expect(unauthenticated.headers['prior-auth-version']).toBe(LEGACY);
    const payers = await request(t.app)
      .get('/v1/payers')
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .expect(200);
    expect(payers.headers['prior-auth-version']).toBe(CURRENT);
    // Outside /v1 nothing is versioned, whatever the request sent.
    const health = await request(t.app).get('/health').set(HEADER, LEGACY).expect(200);
    expect(health.headers['prior-auth-version']).toBeUndefined();
  });

  it('refuses an unknown version with 422 at the header', async () => {
    for (const value of ['2023-01-01', 'latest', '']) {
      const res = await versioned(tenant.keys.sandbox, value).list().expect(422);
      expect(res.body.error.code).toBe('request_validation_failed');
      expect(res.body.error.issues).toEqual([expect.objectContaining({ location: ['headers', HEADER] })]);
      expect(res.headers['prior-auth-version']).toBe(CURRENT);
    }
  });

  it('is the version pinned on the key when no header is sent; the header overrides it both ways', async () => {
    const pinned = versioned(pinnedKey, null);
    const created = await pinned.create(legacyBody()).expect(201);
    expect(created.headers['prior-auth-version']).toBe(LEGACY);
    expect(created.body.status).toBe('draft');

    const current = await versioned(pinnedKey, CURRENT).get(created.body.id).expect(200);
    expect(current.headers['prior-auth-version']).toBe(CURRENT);
    expect(current.body).toMatchObject({
      status: 'requires_input',
      policy: { finalSubmission: 'automatic' },
    });

    const legacy = await versioned(tenant.keys.sandbox, LEGACY).get(created.body.id).expect(200);
    expect(legacy.headers['prior-auth-version']).toBe(LEGACY);
    expect(legacy.body.status).toBe('draft');
    expect(legacy.body).not.toHaveProperty('policy');
  });

  it('reads a case created under one version under the other, on both path families', async () => {
    const currentCase = await c.create(createBody(tenant), newKey(), ALT_BASE).expect(201);
    const asLegacy = await versioned(tenant.keys.sandbox, LEGACY)
      .get(currentCase.body.id, ALT_BASE)
      .expect(200);
    expect(Object.keys(asLegacy.body).sort()).toEqual(LEGACY_FIELDS);
    expect(asLegacy.body).toMatchObject({ id: currentCase.body.id, version: 1, status: 'draft' });

    const legacyCase = await versioned(tenant.keys.sandbox, LEGACY)
      .create(legacyBody(), null, ALT_BASE)
      .expect(201);
    const asCurrent = await c.get(legacyCase.body.id).expect(200);
    expect(asCurrent.body).toMatchObject({
      id: legacyCase.body.id,
      status: 'requires_input',
      templateSelection: { serviceCodeSystem: 'hcpcs' },
    });

    const page = await versioned(tenant.keys.sandbox, LEGACY).list('?limit=5').expect(200);
    expect(page.body.data.length).toBeGreaterThan(0);
    for (const item of page.body.data) expect(Object.keys(item).sort()).toEqual(LEGACY_FIELDS);
  });
});

describe('legacy create (2024-01-01)', () => {
  const legacy = () => versioned(tenant.keys.sandbox, LEGACY);

  it('needs no policy nor Idempotency-Key; a policy sent anyway is ignored', async () => {
    const created = await legacy()
      .create(legacyBody({ policy: { finalSubmission: 'requires_confirmation' } }))
      .expect(201);
    expect(created.headers.location).toBe(`${BASE}/${created.body.id}`);
    expect(created.headers.etag).toBe('"1"');
    expect(created.body).toMatchObject({
      version: 1,
      status: 'draft',
      outcome: null,
      confirmation: null,
      decision: null,
      submittedAt: null,
      completedAt: null,
      attachments: [],
    });
    const stored = await c.get(created.body.id).expect(200);
    expect(stored.body.policy).toEqual({ finalSubmission: 'automatic' });
  });

  it('matches serviceCodeSystem case-insensitively; another system is unsupported_template_selection', async () => {
    await legacy()
      .create(legacyBody({ templateSelection: { ...CPAP_SELECTION, serviceCodeSystem: 'HcPcS' } }))
      .expect(201);
    const unknown = await legacy()
      .create(legacyBody({ templateSelection: { ...CPAP_SELECTION, serviceCodeSystem: 'icd10' } }))
      .expect(409);
    expect(unknown.body.error.code).toBe('unsupported_template_selection');
    const tooLong = await legacy()
      .create(legacyBody({ templateSelection: { ...CPAP_SELECTION, serviceCodeSystem: 'x'.repeat(21) } }))
      .expect(422);
    expect(tooLong.body.error.issues).toEqual([
      expect.objectContaining({ location: ['body', 'templateSelection', 'serviceCodeSystem'] }),
    ]);
    const empty = await legacy()
      .create(legacyBody({ templateSelection: { ...CPAP_SELECTION, serviceCodeSystem: '' } }))
      .expect(422);
    expect(empty.body.error.code).toBe('request_validation_failed');
  });

  it('keeps the current rules for current clients (policy and Idempotency-Key required)', async () => {
    const noPolicy = await c.create(legacyBody({ templateSelection: { ...CPAP_SELECTION } })).expect(400);
    expect(noPolicy.body.error.code).toBe('final_submission_policy_required');
    const noKey = await c.create(createBody(tenant), null).expect(422);
    expect(noKey.body.error.issues[0].location).toEqual(['headers', 'Idempotency-Key']);
  });

  it('answers the same error codes as the current version', async () => {
    const badNpi = await legacy()
      .create(legacyBody({ providerNpi: '1245319599' }))
      .expect(404);
    expect(badNpi.body.error.code).toBe('provider_not_found');
    const badPayer = await legacy()
      .create(legacyBody({ templateSelection: { ...CPAP_SELECTION, payerId: 'payer_nope' } }))
      .expect(404);
    expect(badPayer.body.error.code).toBe('payer_not_found');
    const created = await legacy().create(legacyBody()).expect(201);
    const stale = await legacy()
      .patch(created.body.id, '"7"', { questionnaireResponse: { item: [] } })
      .expect(409);
    expect(stale.body.error.code).toBe('version_conflict');
    // Without nextActionId the open action is used: a provide_requirements action is not confirmable.
    const notConfirmable = await legacy().confirm(created.body.id, '"1"', {}).expect(409);
    expect(notConfirmable.body.error.code).toBe('next_action_not_confirmable');
    const missing = await legacy().get('auth_missing').expect(404);
    expect(missing.body.error.code).toBe('authorization_not_found');
  });
});

describe('a legacy case driven to completed under 2024-01-01 only', () => {
  it('goes draft → ready → in_progress → waiting_on_payer → completed', async () => {
    const legacy = versioned(tenant.keys.sandbox, LEGACY);
    const created = await legacy.create(legacyBody()).expect(201);
    expect(created.body.status).toBe('draft');
    expect(created.body.requirements.questions.length).toBeGreaterThan(0);

    const answered = await legacy
      .patch(created.body.id, '"1"', { questionnaireResponse: { item: COMPLETE_CPAP_ANSWERS } })
      .expect(200);
    expect(answered.headers['prior-auth-version']).toBe(LEGACY);
    expect(answered.body).toMatchObject({ status: 'draft', version: 2 });
    expect(answered.body.requirements.documents.map((d: { type: string }) => d.type).sort()).toEqual(
      CPAP_DOCUMENT_TYPES,
    );

    const stray = await c.uploadFile();
    const withStray = await legacy
      .attach(created.body.id, '"2"', { fileId: stray.id, documentTypes: ['clinical_notes'] })
      .expect(200);
    const detached = await legacy
      .detach(created.body.id, withStray.body.attachments[0].id, `"${withStray.body.version}"`)
      .expect(200);
    expect(detached.body).toMatchObject({ status: 'draft', attachments: [] });

    const file = await c.uploadFile();
    const ready = await legacy
      .attach(created.body.id, `"${detached.body.version}"`, {
        fileId: file.id,
        documentTypes: CPAP_DOCUMENT_TYPES,
      })
      .expect(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.attachments).toEqual([
      {
        id: expect.stringMatching(/^att_/),
        fileId: file.id,
        label: expect.any(String),
        createdAt: expect.any(String),
        documentTypes: CPAP_DOCUMENT_TYPES,
      },
    ]);

    // Under 2024-01-01 confirm may omit nextActionId: the current confirmable action is used.
    const confirmed = await legacy.confirm(created.body.id, `"${ready.body.version}"`, undefined).expect(200);
    expect(confirmed.body.status).toBe('in_progress');

    await pipeline(t).process(sandboxScope(tenant), created.body.id);
    const waiting = await legacy.get(created.body.id).expect(200);
    expect(waiting.body.status).toBe('waiting_on_payer');
    expect(waiting.body.confirmation).toEqual({
      receivedAt: expect.any(String),
      referenceNumber: expect.any(String),
      details: expect.any(Object),
    });
    expect(waiting.body.submittedAt).toEqual(expect.any(String));

    expect(await pipeline(t).pollDecision(sandboxScope(tenant), created.body.id)).toBe('decision_recorded');
    const completed = await legacy.get(created.body.id).expect(200);
    expect(completed.body).toMatchObject({
      status: 'completed',
      outcome: 'approved',
      completedAt: expect.any(String),
      decision: expect.objectContaining({ receivedAt: expect.any(String) }),
    });
    expect(Object.keys(completed.body).sort()).toEqual(LEGACY_FIELDS);
  });
});

describe('legacy status mapping', () => {
  const legacyStatusOf = async (id: string) =>
    (await versioned(tenant.keys.sandbox, LEGACY).get(id).expect(200)).body.status as string;
  const confirm = (authorization: { id: string; version: number; nextAction: { id: string } }) =>
    c
      .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
      .expect(200);

  it('maps every status', async () => {
    const draft = await c.create(createBody(tenant)).expect(201);
    expect(await legacyStatusOf(draft.body.id)).toBe('draft');

    const { authorization: ready } = await readyToConfirm(c, tenant);
    expect(await legacyStatusOf(ready.id)).toBe('ready');

    const { authorization: processing } = await readyToConfirm(c, tenant);
    await confirm(processing);
    expect(await legacyStatusOf(processing.id)).toBe('in_progress');

    const { authorization: human } = await readyToConfirm(c, tenant, 'automatic', 'SBX-MANUAL-HANDOFF');
    await confirm(human);
    await pipeline(t).process(sandboxScope(tenant), human.id);
    expect((await c.get(human.id).expect(200)).body.status).toBe('requires_action');
    expect(await legacyStatusOf(human.id)).toBe('action_required');

    const { authorization: pending } = await readyToConfirm(c, tenant, 'automatic', 'SBX-PENDING');
    await confirm(pending);
    await pipeline(t).process(sandboxScope(tenant), pending.id);
    expect(await legacyStatusOf(pending.id)).toBe('waiting_on_payer');

    const { authorization: denied } = await readyToConfirm(c, tenant, 'automatic', 'SBX-DENIED');
    await confirm(denied);
    await pipeline(t).process(sandboxScope(tenant), denied.id);
    await pipeline(t).pollDecision(sandboxScope(tenant), denied.id);
    const deniedLegacy = await versioned(tenant.keys.sandbox, LEGACY).get(denied.id).expect(200);
    expect(deniedLegacy.body).toMatchObject({ status: 'completed', outcome: 'denied' });

    const canceled = await versioned(tenant.keys.sandbox, LEGACY).cancel(draft.body.id, '"1"').expect(200);
    expect(canceled.body.status).toBe('cancelled');
  });
});

describe('idempotent replays', () => {
  it('answer the shape and version header of the original request', async () => {
    const key = newKey();
    // Valid under both versions: a retry is validated before its stored answer is replayed.
    const body = createBody(tenant);
    const original = await versioned(tenant.keys.sandbox, LEGACY).create(body, key).expect(201);
    const replay = await versioned(tenant.keys.sandbox, CURRENT).create(body, key).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['prior-auth-version']).toBe(LEGACY);
    expect(replay.text).toBe(original.text);

    const currentKey = newKey();
    const currentBody = createBody(tenant);
    const first = await c.create(currentBody, currentKey).expect(201);
    const legacyReplay = await versioned(tenant.keys.sandbox, LEGACY)
      .create(currentBody, currentKey)
      .expect(201);
    expect(legacyReplay.headers['prior-auth-version']).toBe(CURRENT);
    expect(legacyReplay.body).toEqual(first.body);
  });
});
