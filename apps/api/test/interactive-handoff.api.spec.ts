import { randomUUID } from 'node:crypto';
import { readyToConfirm, sandboxScope } from './authorization-helpers';
import { pipeline } from './pipeline-helpers';
import {
  clickThroughView,
  dragThroughView,
  LiveViewFixture,
  pasteThroughView,
  postInputs,
  scrollThroughView,
  typeThroughView,
} from './support/live-view-fixture';

/*
 * The interactive manual handoff (decision 0038) on the real browser: the portal run that meets the simulated
 * payer's human check keeps its page, the handoff adopts it, and the operator passes the check and submits by
 * scrolling, dragging, clicking, typing and pasting on the interactive live view served by another API process;
 * their input reaches the page through PostgreSQL. The operator then completes the handoff with the reference
 * the portal showed.
 */

const fx = LiveViewFixture.register();

/** Waits for an observable condition of this process (a browser page closing). */
async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition was not met in time');
    await new Promise((resume) => setTimeout(resume, 50));
  }
}

it('lets the operator pass the human check and submit through the interactive view, then complete', async () => {
  const { t, tenant, c } = fx;
  const { authorization } = await readyToConfirm(c, tenant, 'automatic', 'SBX-MANUAL-HANDOFF');
  await c
    .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
    .expect(200);

  const portal = fx.site.portal({
    idleSessionsPerAccount: 0,
    liveSessions: fx.liveSessions(),
    configureContext: fx.keepContext,
  });
  const steps = pipeline(t, undefined, portal);
  await steps.process(sandboxScope(tenant), authorization.id);
  const current = await c.get(authorization.id).expect(200);
  expect(current.body.status).toBe('requires_action');
  expect(current.body.nextAction).toMatchObject({ resolution: { kind: 'manual_handoff' } });

  // The run is over, but its page is kept at the human check for an operator.
  const portalPage = fx.keptPage();
  const keptContext = portalPage.context();
  await portalPage.locator('[data-human-check]').waitFor();
  // The review page fits the run's viewport; a viewport just the height of the human check and the Submit button
  // makes it a long page the operator has to scroll.
  const check = await portalPage.locator('#human-check').boundingBox();
  const submit = await portalPage.locator('#submit-request').boundingBox();
  const width = portalPage.viewportSize()!.width;
  const height = Math.ceil(submit!.y + submit!.height - check!.y + 80);
  await portalPage.setViewportSize({ width, height });
  expect(await portalPage.evaluate('document.documentElement.scrollHeight > innerHeight + 100')).toBe(true);
  expect(await portalPage.evaluate('scrollY')).toBe(0);

  const { handoffs, handoff, grant, view } = await fx.openHandoffView(authorization.id, current.body.version);
  expect(await view.locator('#case-id').textContent()).toBe(authorization.id);
  await view.locator('#page-label', { hasText: '/requests/draft/review' }).waitFor({ timeout: 30_000 });
  // The picture shows the shorter page before the operator acts on it (page expressions as text: this test's
  // compilation has no DOM types).
  await view.waitForFunction(
    `(() => { const s = document.getElementById('screen'); return s.naturalWidth > 0 &&
      Math.abs(s.naturalHeight / s.naturalWidth - ${height / width}) < 0.02; })()`,
    undefined,
    { timeout: 30_000 },
  );

  // A turn of the wheel on the view scrolls the kept page to its end, where the human check is.
  await scrollThroughView(view, 2_000);
  await portalPage.waitForFunction(
    'scrollY > 0 && scrollY + innerHeight >= document.documentElement.scrollHeight - 1',
    undefined,
    {
      timeout: 30_000,
    },
  );

  // A drag across the check's instructions selects their text on the kept page.
  const words = await portalPage.locator('#human-check p').boundingBox();
  await dragThroughView(
    view,
    portalPage,
    { x: words!.x + 1, y: words!.y + words!.height / 2 },
    { x: words!.x + words!.width - 1, y: words!.y + words!.height / 2 },
  );
  await portalPage.waitForFunction("String(getSelection()).includes('confirm you are a person')", undefined, {
    timeout: 30_000,
  });

  // The human check: a click into the answer field, the first word typed, the rest pasted, a click on Submit.
  await typeThroughView(view, portalPage, '#human-answer', 'verify');
  await pasteThroughView(view, ' human');
  await portalPage.waitForFunction(
    "document.getElementById('human-answer')?.value === 'verify human'",
    undefined,
    { timeout: 30_000 },
  );
  await clickThroughView(view, portalPage, '#submit-request');
  await portalPage.locator('#reference-number').waitFor({ timeout: 30_000 });
  await view.locator('#page-label', { hasNotText: '/requests/draft/review' }).waitFor({ timeout: 30_000 });
  const reference = (await portalPage.locator('#reference-number').textContent())!.trim();
  expect(reference).not.toBe('');

  // Anything the view would not send is refused, in the error envelope.
  const malformed = [
    { kind: 'click', x: 5, y: 0.5 },
    { kind: 'scroll', x: 0.5, y: 0.5, deltaY: 100 },
    { kind: 'pointer', phase: 'hover', x: 0.5, y: 0.5 },
    { kind: 'paste', text: '' },
  ];
  expect(await postInputs(view.url(), malformed)).toEqual(
    malformed.map(() => ({ status: 422, code: 'request_validation_failed' })),
  );

  // The operator completes the handoff with the reference they saw; the kept page is then let go.
  const completed = await fx.call(
    'POST',
    `${handoffs}/${handoff.manualHandoffId}/complete`,
    { 'Idempotency-Key': randomUUID(), 'If-Match': `"${handoff.version}"` },
    { reportedOutcome: 'submitted', observedReferenceNumber: reference, operatorNotes: null },
  );
  expect(completed.status).toBe(200);
  await view.waitForSelector('#status[data-state="ended"]', { timeout: 30_000 });
  await until(() => keptContext.pages().length === 0);

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

  // Closing the handoff revoked its grants: input of every kind is refused from then on.
  const late = [
    { kind: 'key', key: 'Enter' },
    { kind: 'scroll', x: 0.5, y: 0.5, deltaX: 0, deltaY: 100 },
    { kind: 'pointer', phase: 'down', x: 0.5, y: 0.5 },
    { kind: 'paste', text: 'late' },
  ];
  expect(await postInputs(view.url(), late)).toEqual(
    late.map(() => ({ status: 410, code: 'access_grant_revoked' })),
  );
  const outcomes = (
    (await t.dataSource.query('SELECT outcome FROM access_grant_openings WHERE grant_id = $1', [
      grant.id,
    ])) as Array<{
      outcome: string;
    }>
  ).map((row) => row.outcome);
  expect(outcomes).toContain('redirected');
  expect(outcomes.filter((o) => o === 'viewed').length).toBeGreaterThan(10);
}, 120_000);
