import { randomBytes, randomUUID } from 'node:crypto';
import { SANDBOX_PAYER_DEMO_ACCOUNT, ScreencastLiveSessions, totpCode } from '@prior-auth/payer-portal';
import {
  PostgresCustomerPortalSessions,
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  TypeOrmRuntimeSessionLedger,
} from '@prior-auth/persistence-postgres';
import { CredentialsCipher, parseCredentialsKeys, RandomIdGenerator } from '@prior-auth/platform';
import { BASE, client, readyToConfirm, sandboxScope, type Client } from './authorization-helpers';
import { payerWebsite, pipeline } from './pipeline-helpers';
import { ApiProcess } from './support/api-process';
import { type PayerWebsite } from './support/payer-website';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * `portalAuthMode: customer_login` on the real browser (decision 0039): the portal run stops at the payer's
 * sign-in page and keeps it; the case waits in requires_action for the customer, who opens the manual handoff's
 * interactive view on another API process and signs in there (username, password, then the authenticator's
 * code, each typed on the view). Completing the handoff hands the case back to the pipeline, whose runs go on
 * from the customer's signed-in session, through submission to the payer's decision. The session is kept sealed
 * in PostgreSQL (decision 0044): the later runs are another portal's, as on another worker, and need no second
 * sign-in.
 */

let t: TestApp;
let tenant: TestTenant;
let c: Client;
let api: ApiProcess;
type BrowserContext = Awaited<ReturnType<PayerWebsite['newContext']>>;
type Page = Awaited<ReturnType<BrowserContext['newPage']>>;
let viewers: BrowserContext | null = null;
let liveSessions: ScreencastLiveSessions | null = null;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  t = await createTestApp();
  tenant = await t.createTenant();
  c = client(t.app, tenant.keys.sandbox);
  const env = { SIGNING_SECRET: t.config.SIGNING_SECRET! };
  [api] = await Promise.all([ApiProcess.start(env), payerWebsite()]);
}, 90_000);

afterAll(async () => {
  await viewers?.close().catch(() => undefined);
  await Promise.all(contexts.map((context) => context.close().catch(() => undefined)));
  await liveSessions?.close();
  await api?.stop();
  await t.close();
});

const call = (method: string, path: string, headers: Record<string, string> = {}, body?: object) =>
  fetch(`${api.baseUrl}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      Authorization: `Bearer ${tenant.keys.sandbox}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/**
 * Types `text` into the field at `selector` of the portal page through the view: a click where the field is
 * (read from the kept page, the test's stand-in for the customer's eyes), then the keys, each sent as input.
 */
async function typeThroughView(view: Page, portalPage: Page, selector: string, text: string): Promise<void> {
  const box = await portalPage.locator(selector).boundingBox();
  const viewport = portalPage.viewportSize();
  if (box === null || viewport === null) throw new Error(`${selector} is not shown`);
  const screen = await view.locator('#screen').boundingBox();
  if (screen === null) throw new Error('the view shows no picture');
  const at = {
    x: ((box.x + box.width / 2) / viewport.width) * screen.width,
    y: ((box.y + box.height / 2) / viewport.height) * screen.height,
  };
  await view.locator('#screen').click({ position: at });
  await portalPage.waitForFunction(
    `document.activeElement?.matches(${JSON.stringify(selector)})`,
    undefined,
    {
      timeout: 30_000,
    },
  );
  await view.locator('#screen').press(text[0]!);
  await view.keyboard.type(text.slice(1));
  await portalPage.waitForFunction(
    `document.querySelector(${JSON.stringify(selector)})?.value === ${JSON.stringify(text)}`,
    undefined,
    { timeout: 30_000 },
  );
}

it('stops at the payer sign-in, lets the customer sign in on the interactive view, then completes', async () => {
  const { authorization } = await readyToConfirm(c, tenant, 'automatic', undefined, {
    portalAuthMode: 'customer_login',
  });
  expect(authorization.portalAuthMode).toBe('customer_login');
  await c
    .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
    .expect(200);

  const site = await payerWebsite();
  liveSessions = new ScreencastLiveSessions({
    ledger: new TypeOrmRuntimeSessionLedger(t.dataSource),
    frames: new PostgresLiveSessionFrames(t.dataSource),
    inputs: new PostgresLiveSessionInputs(t.dataSource),
    clock: { now: () => new Date() },
    ids: new RandomIdGenerator(),
    minFrameIntervalMs: 100,
    watchCheckMs: 100,
    holdMs: 120_000,
  });
  // The credentials' key every worker is configured with; each worker builds its own store over it.
  const keys = parseCredentialsKeys(randomBytes(32).toString('base64'));
  if (typeof keys === 'string') throw new Error(keys);
  const cipher = new CredentialsCipher(keys);
  const portal = site.portal({
    idleSessionsPerAccount: 0,
    liveSessions,
    customerSessions: new PostgresCustomerPortalSessions(t.dataSource, cipher),
    // The service has no sign-in of its own for a customer_login case.
    credentials: async () => {
      throw new Error('customer_login asks for no stored credentials');
    },
    configureContext: async (context) => {
      contexts.push(context);
    },
  });
  const steps = pipeline(t, undefined, portal);
  const scope = sandboxScope(tenant);
  expect(await steps.process(scope, authorization.id)).toEqual(['manual_interaction_required']);
  const waiting = await c.get(authorization.id).expect(200);
  expect(waiting.body.status).toBe('requires_action');
  expect(waiting.body.nextAction).toMatchObject({
    type: 'complete_payer_interaction',
    resolution: { kind: 'manual_handoff', reason: 'customer_login_required' },
  });

  // The run stopped at the payer's sign-in page and keeps it for the customer.
  const kept = contexts.filter((context) => context.pages().length > 0);
  expect(kept).toHaveLength(1);
  const portalPage = kept[0]!.pages()[0]!;
  await portalPage.locator('body[data-page="sign-in"]').waitFor();

  const handoffs = `${BASE}/${authorization.id}/manual-handoffs`;
  const created = await call('POST', handoffs, {
    'Idempotency-Key': randomUUID(),
    'If-Match': `"${waiting.body.version}"`,
  });
  expect(created.status).toBe(201);
  const handoff = (await created.json()) as { manualHandoffId: string; version: number };
  const granted = await call('POST', `${handoffs}/${handoff.manualHandoffId}/access-grants`, {
    'Idempotency-Key': randomUUID(),
  });
  expect(granted.status).toBe(201);
  const grant = (await granted.json()) as { url: string };

  viewers = await site.newContext();
  const view = await viewers.newPage();
  await view.goto(`${api.baseUrl}${new URL(grant.url).pathname}`);
  expect(await view.locator('body').getAttribute('data-access')).toBe('interactive');
  await view.locator('#page-label', { hasText: '/sign-in' }).waitFor({ timeout: 30_000 });
  const sessionId = (
    (await t.dataSource.query(
      `SELECT id FROM runtime_sessions WHERE authorization_id = $1 AND status <> 'ended'`,
      [authorization.id],
    )) as Array<{ id: string }>
  )[0]!.id;

  // The customer signs in with their own account, on the view.
  const account = SANDBOX_PAYER_DEMO_ACCOUNT;
  await typeThroughView(view, portalPage, '#username', account.username);
  await typeThroughView(view, portalPage, '#password', account.password);
  await view.locator('#screen').press('Enter');
  await portalPage.locator('body[data-page="verify-code"]').waitFor({ timeout: 30_000 });
  await typeThroughView(view, portalPage, '#code', totpCode(account.totpSecret));
  await view.locator('#screen').press('Enter');
  await portalPage.locator('body[data-page="choose-provider"]').waitFor({ timeout: 30_000 });

  // What the customer typed went to the page and nowhere else: no input is left in the channel.
  const leftover = (await t.dataSource.query(
    'SELECT count(*)::int AS n FROM runtime_session_inputs WHERE session_id = $1',
    [sessionId],
  )) as Array<{ n: number }>;
  expect(leftover[0]!.n).toBe(0);
  for (const table of ['access_grant_openings', 'audit_log', 'events']) {
    const found = (await t.dataSource.query(
      `SELECT count(*)::int AS n FROM ${table} AS row WHERE strpos(row_to_json(row)::text, $1) > 0`,
      [account.password],
    )) as Array<{ n: number }>;
    expect({ table, stored: found[0]!.n }).toEqual({ table, stored: 0 });
  }

  // The signed-in session is kept for the case, sealed: none of the portal's cookie values is in its row.
  const sessionRow = async () =>
    (await t.dataSource.query(
      `SELECT row_to_json(s)::text AS json FROM customer_portal_sessions s
        WHERE organization_id = $1 AND authorization_id = $2`,
      [tenant.organizationId, authorization.id],
    )) as Array<{ json: string }>;
  const keptBy = Date.now() + 30_000;
  while ((await sessionRow()).length === 0) {
    if (Date.now() > keptBy) throw new Error('the customer session was not kept');
    await portalPage.waitForTimeout(100);
  }
  const values = (await kept[0]!.cookies()).map((cookie) => cookie.value).filter((value) => value !== '');
  expect(values.length).toBeGreaterThan(0);
  const [sealed] = await sessionRow();
  for (const value of values) expect(sealed!.json).not.toContain(value);

  // Signed in: the customer hands the case back; the kept page is let go and the pipeline goes on.
  const completed = await call(
    'POST',
    `${handoffs}/${handoff.manualHandoffId}/complete`,
    { 'Idempotency-Key': randomUUID(), 'If-Match': `"${handoff.version}"` },
    { reportedOutcome: 'follow_up_required_observed', observedReferenceNumber: null, operatorNotes: null },
  );
  expect(completed.status).toBe(200);
  await view.waitForSelector('#status[data-state="ended"]', { timeout: 30_000 });
  expect(
    await steps.reconcileHandoff(scope, {
      authorizationId: authorization.id,
      manualHandoffId: handoff.manualHandoffId,
      attempt: 1,
    }),
  ).toBe('pipeline_resumed');

  // The runs go on from the customer's session on another worker (a portal of its own, sharing nothing with the
  // first but the database): no sign-in page again, a receipt, then the decision.
  const elsewhere = pipeline(
    t,
    undefined,
    site.portal({
      idleSessionsPerAccount: 0,
      customerSessions: new PostgresCustomerPortalSessions(t.dataSource, cipher),
      credentials: async () => {
        throw new Error('customer_login asks for no stored credentials');
      },
    }),
  );
  expect(await elsewhere.process(scope, authorization.id)).toEqual(['receipt_recorded']);
  const received = await c.get(authorization.id).expect(200);
  expect(received.body.status).toBe('waiting_on_payer');
  expect(received.body.submission.payerReceipt.referenceNumber).toMatch(/\S/);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const outcome = await elsewhere.pollDecision(scope, authorization.id);
    if (outcome === 'decision_recorded') break;
    expect(outcome).toBe('decision_pending');
    if (Date.now() > deadline) throw new Error('no decision in time');
    await new Promise((wait) => setTimeout(wait, 250));
  }
  const decided = await c.get(authorization.id).expect(200);
  expect(decided.body.status).toBe('completed');
  expect(decided.body.outcome).toEqual(expect.any(String));
  // The case is done with the payer: the purge drops its session.
  await new PostgresCustomerPortalSessions(t.dataSource, cipher).purgeExpired(new Date());
  expect(await sessionRow()).toHaveLength(0);
}, 150_000);
