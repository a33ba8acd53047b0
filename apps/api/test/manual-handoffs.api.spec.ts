import { JOB_TABLE } from '@prior-auth/persistence-postgres';
import { sandboxManualReferenceNumber } from '@prior-auth/payer-portal';
import request from 'supertest';
import {
  ALT_BASE,
  BASE,
  client,
  newKey,
  readyToConfirm,
  sandboxScope,
  type Client,
} from './authorization-helpers';
import { pipeline, submitAsOperator } from './pipeline-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * Manual handoffs, access grants and live sessions through the API (decisions 0007 and 0014). The worker's
 * steps for the case under test run in-process (pipeline-helpers); everything else is HTTP.
 */

let t: TestApp;
let tenant: TestTenant;
let c: Client;
/** Shifts the API's clock (grant expiry) without touching the database's. */
let clockOffsetMs = 0;

beforeAll(async () => {
  t = await createTestApp({ clock: { now: () => new Date(Date.now() + clockOffsetMs) } });
  tenant = await t.createTenant();
  c = client(t.app, tenant.keys.sandbox);
});
afterEach(() => {
  clockOffsetMs = 0;
});
afterAll(async () => {
  await t.close();
});

const auth = () => ({ Authorization: `Bearer ${tenant.keys.sandbox}` });
const handoffsOf = (authorizationId: string, base = BASE) => `${base}/${authorizationId}/manual-handoffs`;
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** A sandbox case whose payer portal needs a human: requires_action / complete_payer_interaction. */
async function awaitingHuman() {
  const { authorization } = await readyToConfirm(c, tenant, 'automatic', 'SBX-MANUAL-HANDOFF');
  await c
    .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
    .expect(200);
  await pipeline(t).process(sandboxScope(tenant), authorization.id);
  const current = await c.get(authorization.id).expect(200);
  expect(current.body.status).toBe('requires_action');
  expect(current.body.nextAction).toMatchObject({
    type: 'complete_payer_interaction',
    resolution: { kind: 'manual_handoff' },
  });
  return current.body as { id: string; version: number; nextAction: { id: string } };
}

function post(path: string, options: { ifMatch?: string | null; key?: string | null; body?: object } = {}) {
  const req = request(t.app).post(path).set(auth());
  if (options.ifMatch !== undefined && options.ifMatch !== null) req.set('If-Match', options.ifMatch);
  const key = options.key === undefined ? newKey() : options.key;
  if (key !== null) req.set('Idempotency-Key', key);
  return options.body === undefined ? req : req.send(options.body);
}

async function createHandoff(authorization: { id: string; version: number }) {
  const created = await post(handoffsOf(authorization.id), { ifMatch: `"${authorization.version}"` }).expect(
    201,
  );
  return created.body as {
    manualHandoffId: string;
    version: number;
    state: string;
    authorization: { version: number };
  };
}

const grantOf = (authorizationId: string, handoffId: string) =>
  post(`${handoffsOf(authorizationId)}/${handoffId}/access-grants`).expect(201);

async function openings(grantId: string) {
  return t.dataSource.query(
    `SELECT outcome, client_address, user_agent FROM access_grant_openings WHERE grant_id = $1 ORDER BY id`,
    [grantId],
  ) as Promise<Array<{ outcome: string; client_address: string | null; user_agent: string | null }>>;
}

describe('create', () => {
  it('refuses a handoff while no payer interaction needs a human (manual_handoff_not_allowed)', async () => {
    const { authorization } = await readyToConfirm(c, tenant);
    const refused = await post(handoffsOf(authorization.id), {
      ifMatch: `"${authorization.version}"`,
    }).expect(409);
    expect(refused.body.error).toMatchObject({ code: 'manual_handoff_not_allowed', retryable: false });
    const list = await request(t.app).get(handoffsOf(authorization.id)).set(auth()).expect(200);
    expect(list.body.data).toEqual([]);
  });

  it('creates an active handoff with Location and ETag, once per interaction', async () => {
    const authorization = await awaitingHuman();
    const key = newKey();
    const created = await post(handoffsOf(authorization.id, ALT_BASE), {
      ifMatch: `"${authorization.version}"`,
      key,
    }).expect(201);
    expect(created.body).toMatchObject({
      state: 'active',
      result: null,
      authorization: { id: authorization.id, status: 'requires_action' },
      version: created.body.version,
      closedAt: null,
    });
    expect(created.body).not.toHaveProperty('reconciliation');
    expect(created.headers.etag).toBe(`"${created.body.version}"`);
    expect(created.headers.location).toBe(
      `${ALT_BASE}/${authorization.id}/manual-handoffs/${created.body.manualHandoffId}`,
    );
    expect(Date.parse(created.body.expiresAt) - Date.parse(created.body.createdAt)).toBe(60 * 60 * 1000);

    const replay = await post(handoffsOf(authorization.id, ALT_BASE), {
      ifMatch: `"${authorization.version}"`,
      key,
    }).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(created.body);

    const second = await post(handoffsOf(authorization.id), { ifMatch: `"${authorization.version}"` }).expect(
      409,
    );
    expect(second.body.error).toMatchObject({
      code: 'manual_handoff_not_allowed',
      details: { manualHandoffId: created.body.manualHandoffId },
    });

    const one = await request(t.app)
      .get(`${handoffsOf(authorization.id)}/${created.body.manualHandoffId}`)
      .set(auth())
      .expect(200);
    expect(one.body).toEqual(created.body);
    expect(one.headers.etag).toBe(created.headers.etag);
    const list = await request(t.app).get(handoffsOf(authorization.id)).set(auth()).expect(200);
    expect(list.body).toEqual({ data: [created.body], pagination: { nextCursor: null } });
    const typo = await request(t.app)
      .get(`${handoffsOf(authorization.id)}?limt=5`)
      .set(auth())
      .expect(422);
    expect(typo.body.error.issues).toEqual([
      expect.objectContaining({ errorType: 'unknown_field', location: ['query', 'limt'] }),
    ]);
  });

  it('checks the tenant (404) before If-Match (428 missing, 400 malformed, 409 stale)', async () => {
    const authorization = await awaitingHuman();
    const unknown = await post(handoffsOf('auth_doesnotexist')).expect(404);
    expect(unknown.body.error.code).toBe('authorization_not_found');
    const other = await t.createTenant();
    const foreign = await request(t.app)
      .post(handoffsOf(authorization.id))
      .set({ Authorization: `Bearer ${other.keys.sandbox}`, 'Idempotency-Key': newKey(), 'If-Match': '"1"' })
      .expect(404);
    expect(foreign.body.error.code).toBe('authorization_not_found');
    const production = await request(t.app)
      .get(handoffsOf(authorization.id))
      .set({ Authorization: `Bearer ${tenant.keys.production}` })
      .expect(404);
    expect(production.body.error.code).toBe('authorization_not_found');

    expect((await post(handoffsOf(authorization.id)).expect(428)).body.error.code).toBe(
      'precondition_required',
    );
    expect((await post(handoffsOf(authorization.id), { ifMatch: 'W/"1"' }).expect(400)).body.error.code).toBe(
      'bad_request',
    );
    const stale = await post(handoffsOf(authorization.id), {
      ifMatch: `"${authorization.version - 1}"`,
    }).expect(409);
    expect(stale.body.error).toMatchObject({
      code: 'version_conflict',
      details: { expectedVersion: authorization.version - 1, actualVersion: authorization.version },
    });
    const missingKey = await post(handoffsOf(authorization.id), {
      ifMatch: `"${authorization.version}"`,
      key: null,
    }).expect(422);
    expect(missingKey.body.error.issues).toEqual([
      expect.objectContaining({ location: ['headers', 'Idempotency-Key'] }),
    ]);
    const withBody = await post(handoffsOf(authorization.id), {
      ifMatch: `"${authorization.version}"`,
      body: { note: 'x' },
    }).expect(422);
    expect(withBody.body.error.issues).toEqual([
      expect.objectContaining({ errorType: 'unknown_field', location: ['body', 'note'] }),
    ]);
    const list = await request(t.app).get(handoffsOf(authorization.id)).set(auth()).expect(200);
    expect(list.body.data).toEqual([]);
  });

  it('lets exactly one of ten parallel creates win', async () => {
    const authorization = await awaitingHuman();
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        post(handoffsOf(authorization.id), { ifMatch: `"${authorization.version}"` }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    for (const refused of results.filter((r) => r.status === 409)) {
      expect(['version_conflict', 'manual_handoff_not_allowed']).toContain(refused.body.error.code);
    }
    const list = await request(t.app).get(handoffsOf(authorization.id)).set(auth()).expect(200);
    expect(list.body.data).toHaveLength(1);
  });
});

describe('access grants and the sandbox session page', () => {
  it('opens an interactive grant: audited, redirected to the session page, which submits at the payer', async () => {
    const authorization = await awaitingHuman();
    const handoff = await createHandoff(authorization);
    const grant = await grantOf(authorization.id, handoff.manualHandoffId);
    expect(grant.body).toEqual({
      id: expect.stringMatching(/^grant_/),
      url: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(grant.body.expiresAt) - Date.now()).toBeLessThanOrEqual(5 * 60 * 1000);
    expect(new URL(grant.body.url).pathname).toMatch(/^\/grants\//);

    // No API key: the URL is the credential.
    const opened = await request(t.app)
      .get(pathOf(grant.body.url))
      .set('User-Agent', 'operator-browser/1.0')
      .expect(303);
    expect(opened.headers['referrer-policy']).toBe('no-referrer');
    expect(opened.headers['cache-control']).toBe('no-store');
    const session = pathOf(opened.headers.location!);
    expect(session).toMatch(/^\/sandbox-portal\/sessions\//);
    expect(await openings(grant.body.id)).toEqual([
      { outcome: 'redirected', client_address: expect.any(String), user_agent: 'operator-browser/1.0' },
    ]);
    const audit = await t.dataSource.query(
      `SELECT action, subject_type, subject_id FROM audit_log WHERE actor = $1`,
      [`access_grant:${grant.body.id}`],
    );
    expect(audit).toEqual([
      {
        action: 'access_grant.redirected',
        subject_type: 'manual_handoff',
        subject_id: handoff.manualHandoffId,
      },
    ]);

    const page = await request(t.app).get(session).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain(authorization.id);
    expect(page.text).toMatch(/<form[^>]+method="post"/i);
    const submitted = await request(t.app).post(session).type('form').send({}).expect(200);
    expect(submitted.text).toContain(sandboxManualReferenceNumber(authorization.id));
  });

  it('refuses tampered, expired and revoked grants, and audits each attempt', async () => {
    const authorization = await awaitingHuman();
    const handoff = await createHandoff(authorization);
    const grant = await grantOf(authorization.id, handoff.manualHandoffId);
    const path = pathOf(grant.body.url);

    const tampered = `${path.slice(0, -3)}${path.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    const invalid = await request(t.app).get(tampered).expect(403);
    expect(invalid.body.error.code).toBe('access_grant_invalid');
    const invalidRows = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM access_grant_openings WHERE outcome = 'invalid' AND grant_id IS NULL`,
    );
    expect(invalidRows[0].n).toBeGreaterThan(0);

    clockOffsetMs = 5 * 60 * 1000 + 1_000;
    const expired = await request(t.app).get(path).expect(410);
    expect(expired.body.error.code).toBe('access_grant_expired');
    clockOffsetMs = 0;

    const fresh = await grantOf(authorization.id, handoff.manualHandoffId);
    await post(`${handoffsOf(authorization.id)}/${handoff.manualHandoffId}/revoke`, {
      ifMatch: `"${handoff.version}"`,
      body: { reason: 'wrong operator' },
    }).expect(200);
    const revoked = await request(t.app).get(pathOf(fresh.body.url)).expect(410);
    expect(revoked.body.error.code).toBe('access_grant_revoked');

    expect((await openings(grant.body.id)).map((o) => o.outcome)).toEqual(['expired']);
    expect((await openings(fresh.body.id)).map((o) => o.outcome)).toEqual(['revoked']);
    const refusedGrant = await post(
      `${handoffsOf(authorization.id)}/${handoff.manualHandoffId}/access-grants`,
    ).expect(409);
    expect(refusedGrant.body.error.code).toBe('manual_handoff_invalid_state');
  });

  it('serves a read-only live view while the handoff is active, and nothing once it is closed', async () => {
    const authorization = await awaitingHuman();
    const before = await request(t.app)
      .get(`${BASE}/${authorization.id}/live-session`)
      .set(auth())
      .expect(200);
    expect(before.body).toMatchObject({ available: false, status: null, startedAt: null });
    const none = await post(`${BASE}/${authorization.id}/live-session/access-grants`).expect(409);
    expect(none.body.error.code).toBe('live_session_not_available');

    const handoff = await createHandoff(authorization);
    const live = await request(t.app)
      .get(`${ALT_BASE}/${authorization.id}/live-session`)
      .set(auth())
      .expect(200);
    expect(live.body).toMatchObject({
      authorization: { id: authorization.id, status: 'requires_action' },
      available: true,
      status: 'active',
    });
    // The read minted nothing.
    const grantsBefore = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM access_grants WHERE subject_id = $1`,
      [authorization.id],
    );
    expect(grantsBefore[0].n).toBe(0);

    const grant = await post(`${BASE}/${authorization.id}/live-session/access-grants`).expect(201);
    expect(grant.body).toMatchObject({ access: 'read_only', id: expect.stringMatching(/^grant_/) });
    const opened = await request(t.app).get(pathOf(grant.body.url)).expect(303);
    const view = pathOf(opened.headers.location!);
    const page = await request(t.app).get(view).expect(200);
    expect(page.text).not.toMatch(/<form/i);
    expect(page.text.toLowerCase()).toContain('read-only');
    await request(t.app).post(view).type('form').send({}).expect(403);

    await post(`${handoffsOf(authorization.id)}/${handoff.manualHandoffId}/unable-to-complete`, {
      ifMatch: `"${handoff.version}"`,
      body: { reason: 'credential_or_mfa_issue', operatorNotes: 'MFA device unavailable' },
    }).expect(200);
    const after = await request(t.app)
      .get(`${BASE}/${authorization.id}/live-session`)
      .set(auth())
      .expect(200);
    expect(after.body.available).toBe(false);
    const inactive = await request(t.app).get(pathOf(grant.body.url)).expect(409);
    expect(inactive.body.error.code).toBe('access_grant_subject_inactive');
  });
});

describe('complete, unable-to-complete, revoke', () => {
  it('runs the sandbox manual_handoff scenario from create to completed', async () => {
    const authorization = await awaitingHuman();
    const handoff = await createHandoff(authorization);
    // The operator submits at the simulated payer website and reports the reference it showed.
    const reference = await submitAsOperator(authorization.id);

    const completed = await post(`${handoffsOf(authorization.id)}/${handoff.manualHandoffId}/complete`, {
      ifMatch: `"${handoff.version}"`,
      body: { reportedOutcome: 'submitted', observedReferenceNumber: ` ${reference} `, operatorNotes: null },
    }).expect(200);
    expect(completed.body).toMatchObject({
      state: 'closing',
      result: null,
      reconciliation: { id: expect.stringMatching(/^rec_/), state: 'pending' },
      authorization: { id: authorization.id, status: 'processing' },
    });
    expect(completed.headers.etag).toBe(`"${completed.body.version}"`);
    // The operator's claim alone projects no payer truth.
    const claimed = await c.get(authorization.id).expect(200);
    expect(claimed.body.status).toBe('processing');
    expect(claimed.body.submission.payerReceipt).toBeNull();

    const steps = pipeline(t);
    expect(
      await steps.reconcileHandoff(sandboxScope(tenant), {
        authorizationId: authorization.id,
        manualHandoffId: handoff.manualHandoffId,
        attempt: 1,
      }),
    ).toBe('confirmed');
    const received = await c.get(authorization.id).expect(200);
    expect(received.body.status).toBe('waiting_on_payer');
    expect(received.body.submission.payerReceipt).toMatchObject({ referenceNumber: reference });
    const closed = await request(t.app)
      .get(`${handoffsOf(authorization.id)}/${handoff.manualHandoffId}`)
      .set(auth())
      .expect(200);
    expect(closed.body).toMatchObject({
      state: 'closed',
      result: 'completed_reported',
      reconciliation: { state: 'confirmed' },
      closedAt: expect.any(String),
    });

    expect(await steps.pollDecision(sandboxScope(tenant), authorization.id)).toBe('decision_recorded');
    const decided = await c.get(authorization.id).expect(200);
    expect(decided.body).toMatchObject({ status: 'completed', outcome: 'approved' });
  });

  it('does not claim a receipt when the reported submission is not found at the payer', async () => {
    const authorization = await awaitingHuman();
    const handoff = await createHandoff(authorization);
    await post(`${handoffsOf(authorization.id)}/${handoff.manualHandoffId}/complete`, {
      ifMatch: `"${handoff.version}"`,
      body: { reportedOutcome: 'submitted', observedReferenceNumber: 'SBX-TYPO-000000' },
    }).expect(200);
    const steps = pipeline(t);
    const ref = { authorizationId: authorization.id, manualHandoffId: handoff.manualHandoffId };
    expect(await steps.reconcileHandoff(sandboxScope(tenant), { ...ref, attempt: 1 })).toBe(
      'retry_scheduled',
    );
    expect((await c.get(authorization.id).expect(200)).body.status).toBe('processing');
    expect(await steps.reconcileHandoff(sandboxScope(tenant), { ...ref, attempt: 3 })).toBe('not_found');

    const after = await c.get(authorization.id).expect(200);
    expect(after.body.status).toBe('requires_action');
    expect(after.body.submission.payerReceipt).toBeNull();
    expect(after.body.nextAction).toMatchObject({ type: 'complete_payer_interaction' });
    expect(after.body.nextAction.id).not.toBe(authorization.nextAction.id);
    const settled = await request(t.app)
      .get(`${handoffsOf(authorization.id)}/${handoff.manualHandoffId}`)
      .set(auth())
      .expect(200);
    expect(settled.body).toMatchObject({ state: 'closed', reconciliation: { state: 'not_found' } });
    // The new interaction may be handed to a human again; the list shows the newest first.
    const again = await createHandoff(after.body);
    const list = await request(t.app).get(handoffsOf(authorization.id)).set(auth()).expect(200);
    expect(list.body.data.map((h: { manualHandoffId: string }) => h.manualHandoffId)).toEqual([
      again.manualHandoffId,
      handoff.manualHandoffId,
    ]);
  });

  it('unable-to-complete closes the handoff and returns the case to processing', async () => {
    const authorization = await awaitingHuman();
    const handoff = await createHandoff(authorization);
    const grant = await grantOf(authorization.id, handoff.manualHandoffId);
    const unable = await post(
      `${handoffsOf(authorization.id)}/${handoff.manualHandoffId}/unable-to-complete`,
      {
        ifMatch: `"${handoff.version}"`,
        body: { reason: 'channel_outage' },
      },
    ).expect(200);
    expect(unable.body).toMatchObject({
      state: 'closed',
      result: 'unable_to_complete',
      authorization: { status: 'processing' },
    });
    expect((await request(t.app).get(pathOf(grant.body.url)).expect(410)).body.error.code).toBe(
      'access_grant_revoked',
    );
  });

  it('revoke closes the handoff, keeps the case in requires_action and refuses a second close', async () => {
    const authorization = await awaitingHuman();
    const handoff = await createHandoff(authorization);
    const revoked = await post(`${handoffsOf(authorization.id)}/${handoff.manualHandoffId}/revoke`, {
      ifMatch: `"${handoff.version}"`,
      body: { reason: 'reassigned', notes: 'to the on-call operator' },
    }).expect(200);
    expect(revoked.body).toMatchObject({
      state: 'closed',
      result: 'revoked',
      authorization: { status: 'requires_action' },
    });
    const again = await post(`${handoffsOf(authorization.id)}/${handoff.manualHandoffId}/complete`, {
      ifMatch: `"${revoked.body.version}"`,
      body: { reportedOutcome: 'submitted' },
    }).expect(409);
    expect(again.body.error.code).toBe('manual_handoff_invalid_state');
  });

  it('validates bodies (422 at the field) before If-Match, and 404s an unknown handoff', async () => {
    const authorization = await awaitingHuman();
    const handoff = await createHandoff(authorization);
    const one = `${handoffsOf(authorization.id)}/${handoff.manualHandoffId}`;
    const badOutcome = await post(`${one}/complete`, { body: { reportedOutcome: 'approved' } }).expect(422);
    expect(badOutcome.body.error.issues).toEqual([
      expect.objectContaining({ errorType: 'enum', location: ['body', 'reportedOutcome'] }),
    ]);
    const noReason = await post(`${one}/revoke`, { ifMatch: '"1"', body: {} }).expect(422);
    expect(noReason.body.error.issues).toEqual([
      expect.objectContaining({ errorType: 'missing', location: ['body', 'reason'] }),
    ]);
    const badReason = await post(`${one}/unable-to-complete`, {
      ifMatch: '"1"',
      body: { reason: 'bored', extra: 1 },
    }).expect(422);
    expect(badReason.body.error.issues.map((i: { location: string[] }) => i.location)).toEqual(
      expect.arrayContaining([
        ['body', 'reason'],
        ['body', 'extra'],
      ]),
    );
    const unknown = await post(`${handoffsOf(authorization.id)}/mh_unknown/complete`, {
      body: { reportedOutcome: 'submitted' },
    }).expect(404);
    expect(unknown.body.error.code).toBe('manual_handoff_not_found');
    const missing = await post(`${one}/complete`, { body: { reportedOutcome: 'submitted' } }).expect(428);
    expect(missing.body.error.code).toBe('precondition_required');
    const current = await request(t.app).get(one).set(auth()).expect(200);
    expect(current.body.state).toBe('active');
  });

  it('lets exactly one of ten parallel completes win; the others change nothing', async () => {
    const authorization = await awaitingHuman();
    const handoff = await createHandoff(authorization);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(`${handoffsOf(authorization.id)}/${handoff.manualHandoffId}/complete`, {
          ifMatch: `"${handoff.version}"`,
          body: { reportedOutcome: 'submitted', observedReferenceNumber: `SBX-${i}` },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    const reconciliations = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM ${JOB_TABLE} WHERE name = 'reconcile_handoff' AND data->>'authorizationId' = $1`,
      [authorization.id],
    );
    expect(reconciliations[0].n).toBe(1);
  });
});
