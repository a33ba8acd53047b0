import { randomUUID } from 'node:crypto';
import { BASE, readyToConfirm, sandboxScope } from './authorization-helpers';
import { pipeline } from './pipeline-helpers';
import { type ApiProcess } from './support/api-process';
import { LiveViewFixture, postInputs, type Page } from './support/live-view-fixture';

/*
 * The read-only live view of a portal run (decision 0033) across processes: the browser runs where the
 * worker's steps run (this test's process, as in pipeline-helpers), the grant is created on one API process and
 * opened on another, and both API processes show the frames the browser's owner publishes through PostgreSQL.
 */

const fx = LiveViewFixture.register({ apiProcesses: 2 });

async function liveSessionOn(api: ApiProcess, authorizationId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await fx.call('GET', `${BASE}/${authorizationId}/live-session`, {}, undefined, api);
    const body = (await response.json()) as { available: boolean };
    if (body.available) return;
    if (Date.now() > deadline) throw new Error('no live session appeared');
    await new Promise((wait) => setTimeout(wait, 50));
  }
}

const label = (page: Page) => page.locator('#page-label').textContent();

it('shows a portal run page by page on two API processes, then ends with the run; the grant is then refused', async () => {
  const { t, tenant, c } = fx;
  const [apiA, apiB] = fx.apis as [ApiProcess, ApiProcess];
  const { authorization } = await readyToConfirm(c, tenant, 'requires_confirmation');
  await c
    .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
    .expect(200);

  // The run's second page waits until the viewers have seen the first, so they see it change.
  let release!: () => void;
  const firstPageSeen = new Promise<void>((done) => (release = done));
  let navigations = 0;
  const portal = fx.site.portal({
    idleSessionsPerAccount: 0,
    liveSessions: fx.liveSessions({ inputs: false }),
    configureContext: async (context) => {
      await context.route('**/*', async (route) => {
        if (route.request().isNavigationRequest()) {
          navigations += 1;
          if (navigations === 2) await firstPageSeen;
        }
        await route.continue();
      });
    },
  });
  const processing = pipeline(t, undefined, portal).process(sandboxScope(tenant), authorization.id);
  try {
    await liveSessionOn(apiA, authorization.id);
    const created = await fx.call(
      'POST',
      `${BASE}/${authorization.id}/live-session/access-grants`,
      { 'Idempotency-Key': randomUUID() },
      undefined,
      apiA,
    );
    expect(created.status).toBe(201);
    const grant = (await created.json()) as { id: string; url: string; access: string };
    expect(grant.access).toBe('read_only');
    const grantPath = new URL(grant.url).pathname;

    // Opened on the other API process, and on the first one too: each leads to its own live view.
    const onB = await fx.openView(`${apiB.baseUrl}${grantPath}`);
    const onA = await fx.openView(`${apiA.baseUrl}${grantPath}`);
    expect(onB.url()).toMatch(new RegExp(`^${apiB.baseUrl}/live-sessions/`));
    expect(onA.url()).toMatch(new RegExp(`^${apiA.baseUrl}/live-sessions/`));
    for (const view of [onA, onB]) {
      await view.waitForSelector('#status[data-state="live"]');
      await view.locator('#page-label', { hasText: '/sign-in' }).waitFor();
      expect(await view.locator('#screen').getAttribute('src')).toMatch(/^data:image\/jpeg;base64,/);
    }
    // Nothing on the page can act: no form, no input, no button.
    expect(await onB.locator('form, input, button, textarea, select').count()).toBe(0);

    release();
    for (const view of [onA, onB]) {
      await view.locator('#page-label', { hasNotText: '/sign-in' }).waitFor({ timeout: 30_000 });
      expect(await label(view)).toMatch(/^\/[a-z-]/);
      // The run (discovery) ends; its view says so.
      await view.waitForSelector('#status[data-state="ended"]', { timeout: 60_000 });
    }
    const viewUrl = onB.url();
    await processing;

    // The session has ended: the grant, the view and its stream are refused with the grant errors.
    const reopened = await fx.call('GET', grantPath, {}, undefined, apiB);
    expect(reopened.status).toBe(409);
    expect(((await reopened.json()) as { error: { code: string } }).error.code).toBe(
      'access_grant_subject_inactive',
    );
    const stream = await fetch(`${viewUrl}/stream`);
    expect(stream.status).toBe(409);
    // Input of any kind to a read-only view is refused whatever the session's state.
    const inputs = [
      { type: 'click', x: 10, y: 10 },
      { kind: 'scroll', x: 0.5, y: 0.5, deltaX: 0, deltaY: 100 },
      { kind: 'pointer', phase: 'down', x: 0.5, y: 0.5 },
      { kind: 'paste', text: 'pasted' },
    ];
    expect(await postInputs(viewUrl, inputs)).toEqual(
      inputs.map(() => ({ status: 403, code: 'access_grant_invalid' })),
    );
    const tampered = await fetch(`${viewUrl.slice(0, -2)}xx`);
    expect(tampered.status).toBe(403);

    // Every use of the grant was audited under it.
    const rows = (await t.dataSource.query('SELECT outcome FROM access_grant_openings WHERE grant_id = $1', [
      grant.id,
    ])) as Array<{ outcome: string }>;
    const outcomes = rows.map((row) => row.outcome);
    expect(outcomes.filter((o) => o === 'redirected')).toHaveLength(2);
    // Two pages and their two streams.
    expect(outcomes.filter((o) => o === 'viewed').length).toBeGreaterThanOrEqual(4);
    expect(outcomes).toEqual(expect.arrayContaining(['input_refused', 'subject_inactive']));
    expect(outcomes.filter((o) => o === 'input_refused').length).toBeGreaterThanOrEqual(4);
  } finally {
    release();
    await processing.catch(() => undefined);
  }
});
