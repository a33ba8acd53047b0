import { randomUUID } from 'node:crypto';
import { ScreencastLiveSessions } from '@prior-auth/payer-portal';
import {
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  TypeOrmRuntimeSessionLedger,
} from '@prior-auth/persistence-postgres';
import { RandomIdGenerator } from '@prior-auth/platform';
import { BASE, client, readyToConfirm, sandboxScope, type Client } from './authorization-helpers';
import { payerWebsite, pipeline } from './pipeline-helpers';
import { ApiProcess } from './support/api-process';
import { type PayerWebsite } from './support/payer-website';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * The interactive manual handoff (decision 0038) on the real browser: the portal run that meets the simulated
 * payer's human check keeps its page, the handoff adopts it, and the operator passes the check and submits by
 * clicking and typing on the interactive live view served by another API process; their input reaches the
 * page through PostgreSQL. The operator then completes the handoff with the reference the portal showed.
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

/** Waits for an observable condition of this process (a browser page closing). */
async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition was not met in time');
    await new Promise((resume) => setTimeout(resume, 50));
  }
}

/**
 * Clicks, on the view, where `selector` is on the portal page: the position is read from the page the run
 * keeps (the test's stand-in for the operator's eyes), as fractions of its viewport, which the picture shows.
 */
async function clickThroughView(view: Page, portalPage: Page, selector: string): Promise<void> {
  const box = await portalPage.locator(selector).boundingBox();
  const viewport = portalPage.viewportSize();
  if (box === null || viewport === null) throw new Error(`${selector} is not shown`);
  const fx = (box.x + box.width / 2) / viewport.width;
  const fy = (box.y + box.height / 2) / viewport.height;
  expect(fy).toBeLessThan(1);
  const screen = await view.locator('#screen').boundingBox();
  if (screen === null) throw new Error('the view shows no picture');
  await view.locator('#screen').click({ position: { x: fx * screen.width, y: fy * screen.height } });
}

it('lets the operator pass the human check and submit through the interactive view, then complete', async () => {
  const { authorization } = await readyToConfirm(c, tenant, 'automatic', 'SBX-MANUAL-HANDOFF');
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
  const portal = site.portal({
    idleSessionsPerAccount: 0,
    liveSessions,
    configureContext: async (context) => {
      contexts.push(context);
    },
  });
  const steps = pipeline(t, undefined, portal);
  await steps.process(sandboxScope(tenant), authorization.id);
  const current = await c.get(authorization.id).expect(200);
  expect(current.body.status).toBe('requires_action');
  expect(current.body.nextAction).toMatchObject({ resolution: { kind: 'manual_handoff' } });

  // The run is over, but its page is kept at the human check for an operator.
  const kept = contexts.filter((context) => context.pages().length > 0);
  expect(kept).toHaveLength(1);
  const portalPage = kept[0]!.pages()[0]!;
  await portalPage.locator('[data-human-check]').waitFor();

  const handoffs = `${BASE}/${authorization.id}/manual-handoffs`;
  const created = await call('POST', handoffs, {
    'Idempotency-Key': randomUUID(),
    'If-Match': `"${current.body.version}"`,
  });
  expect(created.status).toBe(201);
  const handoff = (await created.json()) as { manualHandoffId: string; version: number };
  const granted = await call('POST', `${handoffs}/${handoff.manualHandoffId}/access-grants`, {
    'Idempotency-Key': randomUUID(),
  });
  expect(granted.status).toBe(201);
  const grant = (await granted.json()) as { id: string; url: string };

  viewers = await site.newContext();
  const view = await viewers.newPage();
  await view.goto(`${api.baseUrl}${new URL(grant.url).pathname}`);
  // The grant leads to the interactive live view of the kept page, not to the sandbox session page.
  expect(view.url()).toMatch(new RegExp(`^${api.baseUrl}/live-sessions/`));
  expect(await view.locator('body').getAttribute('data-access')).toBe('interactive');
  expect(await view.locator('#case-id').textContent()).toBe(authorization.id);
  await view.locator('#page-label', { hasText: '/requests/draft/review' }).waitFor({ timeout: 30_000 });

  // The human check: a click into the answer field, the words typed, a click on Submit.
  await clickThroughView(view, portalPage, '#human-answer');
  // Page expressions as text: this test's compilation has no DOM types.
  await portalPage.waitForFunction("document.activeElement?.id === 'human-answer'", undefined, {
    timeout: 30_000,
  });
  await view.locator('#screen').press('v');
  await view.keyboard.type('erify human');
  await portalPage.waitForFunction(
    "document.getElementById('human-answer')?.value === 'verify human'",
    undefined,
    {
      timeout: 30_000,
    },
  );
  await clickThroughView(view, portalPage, '#submit-request');
  await portalPage.locator('#reference-number').waitFor({ timeout: 30_000 });
  await view.locator('#page-label', { hasNotText: '/requests/draft/review' }).waitFor({ timeout: 30_000 });
  const reference = (await portalPage.locator('#reference-number').textContent())!.trim();
  expect(reference).not.toBe('');

  // Anything but a click, a named key or text is refused, in the error envelope.
  const malformed = await fetch(`${view.url()}/input`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ kind: 'click', x: 5, y: 0.5 }),
  });
  expect(malformed.status).toBe(422);
  expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe(
    'request_validation_failed',
  );

  // The operator completes the handoff with the reference they saw; the kept page is then let go.
  const completed = await call(
    'POST',
    `${handoffs}/${handoff.manualHandoffId}/complete`,
    { 'Idempotency-Key': randomUUID(), 'If-Match': `"${handoff.version}"` },
    { reportedOutcome: 'submitted', observedReferenceNumber: reference, operatorNotes: null },
  );
  expect(completed.status).toBe(200);
  await view.waitForSelector('#status[data-state="ended"]', { timeout: 30_000 });
  await until(() => kept[0]!.pages().length === 0);

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

  // Closing the handoff revoked its grants: input is refused from then on.
  const late = await fetch(`${view.url()}/input`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ kind: 'key', key: 'Enter' }),
  });
  expect(late.status).toBe(410);
  const outcomes = (
    (await t.dataSource.query('SELECT outcome FROM access_grant_openings WHERE grant_id = $1', [
      grant.id,
    ])) as Array<{
      outcome: string;
    }>
  ).map((row) => row.outcome);
  expect(outcomes).toContain('redirected');
  expect(outcomes.filter((o) => o === 'viewed').length).toBeGreaterThan(10);
}, 90_000);
