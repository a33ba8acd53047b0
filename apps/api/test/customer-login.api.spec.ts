import { randomBytes, randomUUID } from 'node:crypto';
import { SANDBOX_PAYER_DEMO_ACCOUNT, totpCode } from '@prior-auth/payer-portal';
import { PostgresCustomerPortalSessions } from '@prior-auth/persistence-postgres';
import { CredentialsCipher, parseCredentialsKeys } from '@prior-auth/platform';
import { readyToConfirm, sandboxScope } from './authorization-helpers';
import { pipeline } from './pipeline-helpers';
import { LiveViewFixture, typeThroughView } from './support/live-view-fixture';

/*
 * `portalAuthMode: customer_login` on the real browser (decision 0039): the portal run stops at the payer's
 * sign-in page and keeps it; the case waits in requires_action for the customer, who opens the manual handoff's
 * interactive view on another API process and signs in there (username, password, then the authenticator's
 * code, each typed on the view). Completing the handoff hands the case back to the pipeline, whose runs go on
 * from the customer's signed-in session, through submission to the payer's decision. The session is kept sealed
 * in PostgreSQL (decision 0044): the later runs are another portal's, as on another worker, and need no second
 * sign-in.
 */

const fx = LiveViewFixture.register();

it('stops at the payer sign-in, lets the customer sign in on the interactive view, then completes', async () => {
  const { t, tenant, c } = fx;
  const { authorization } = await readyToConfirm(c, tenant, 'automatic', undefined, {
    portalAuthMode: 'customer_login',
  });
  expect(authorization.portalAuthMode).toBe('customer_login');
  await c
    .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
    .expect(200);

  // The credentials' key every worker is configured with; each worker builds its own store over it.
  const keys = parseCredentialsKeys(randomBytes(32).toString('base64'));
  if (typeof keys === 'string') throw new Error(keys);
  const cipher = new CredentialsCipher(keys);
  const portal = fx.site.portal({
    idleSessionsPerAccount: 0,
    liveSessions: fx.liveSessions(),
    customerSessions: new PostgresCustomerPortalSessions(t.dataSource, cipher),
    // The service has no sign-in of its own for a customer_login case.
    credentials: async () => {
      throw new Error('customer_login asks for no stored credentials');
    },
    configureContext: fx.keepContext,
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
  const portalPage = fx.keptPage();
  const keptContext = portalPage.context();
  await portalPage.locator('body[data-page="sign-in"]').waitFor();

  const { handoffs, handoff, view } = await fx.openHandoffView(authorization.id, waiting.body.version);
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
  const values = (await keptContext.cookies()).map((cookie) => cookie.value).filter((value) => value !== '');
  expect(values.length).toBeGreaterThan(0);
  const [sealed] = await sessionRow();
  for (const value of values) expect(sealed!.json).not.toContain(value);

  // Signed in: the customer hands the case back; the kept page is let go and the pipeline goes on.
  const completed = await fx.call(
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
    fx.site.portal({
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
