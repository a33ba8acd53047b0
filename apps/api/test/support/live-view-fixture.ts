import { randomUUID } from 'node:crypto';
import { ScreencastLiveSessions, type ScreencastLiveSessionsOptions } from '@prior-auth/payer-portal';
import {
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  TypeOrmRuntimeSessionLedger,
} from '@prior-auth/persistence-postgres';
import { RandomIdGenerator } from '@prior-auth/platform';
import { BASE, client, type Client } from '../authorization-helpers';
import { payerWebsite } from '../pipeline-helpers';
import { createTestApp, type TestApp, type TestTenant } from '../test-app';
import { ApiProcess } from './api-process';
import { type PayerWebsite } from './payer-website';

export type BrowserContext = Awaited<ReturnType<PayerWebsite['newContext']>>;
export type Page = Awaited<ReturnType<BrowserContext['newPage']>>;

/**
 * What the live-view tests share (decisions 0033, 0038): the in-process app and a tenant, API processes of
 * their own (a viewer opens the view on another process than the one that runs the case), the simulated payer
 * website, the browser contexts of the portal runs and of the viewers, all closed after the file's tests.
 * Register it once per file, at the top level: it adds the file's beforeAll and afterAll.
 */
export class LiveViewFixture {
  t!: TestApp;
  tenant!: TestTenant;
  c!: Client;
  site!: PayerWebsite;
  /** The API processes (at least one): `api` is the first. */
  apis: ApiProcess[] = [];
  /** Every browser context the portal runs opened (through `configureContext`). */
  readonly contexts: BrowserContext[] = [];
  private viewers: BrowserContext | null = null;
  private readonly liveSessionsMade: ScreencastLiveSessions[] = [];

  private constructor() {}

  static register(options: { apiProcesses?: number } = {}): LiveViewFixture {
    const fixture = new LiveViewFixture();
    beforeAll(async () => {
      fixture.t = await createTestApp();
      fixture.tenant = await fixture.t.createTenant();
      fixture.c = client(fixture.t.app, fixture.tenant.keys.sandbox);
      // The same secret as the in-process API: one deployment.
      const env = { SIGNING_SECRET: fixture.t.config.SIGNING_SECRET! };
      const starting = Array.from({ length: options.apiProcesses ?? 1 }, () => ApiProcess.start(env));
      [fixture.site, ...fixture.apis] = await Promise.all([payerWebsite(), ...starting]);
    }, 90_000);
    afterAll(async () => {
      await fixture.viewers?.close().catch(() => undefined);
      await Promise.all(fixture.contexts.map((context) => context.close().catch(() => undefined)));
      await Promise.all(fixture.liveSessionsMade.map((sessions) => sessions.close()));
      await Promise.all(fixture.apis.map((api) => api.stop()));
      await fixture.t?.close();
    });
    return fixture;
  }

  get api(): ApiProcess {
    return this.apis[0]!;
  }

  /** A call to an API process (the first unless told) with the tenant's sandbox key. */
  call(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: object,
    api: ApiProcess = this.api,
  ): Promise<Response> {
    return fetch(`${api.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        Authorization: `Bearer ${this.tenant.keys.sandbox}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /**
   * Live sessions as the worker runs them, on the test database, quick to publish and to look for viewers and
   * input; with an input channel unless `inputs: false` (a read-only view's run).
   */
  liveSessions(
    options: { inputs?: boolean } & Omit<Partial<ScreencastLiveSessionsOptions>, 'inputs'> = {},
  ): ScreencastLiveSessions {
    const { inputs = true, ...rest } = options;
    const sessions = new ScreencastLiveSessions({
      ledger: new TypeOrmRuntimeSessionLedger(this.t.dataSource),
      frames: new PostgresLiveSessionFrames(this.t.dataSource),
      ...(inputs ? { inputs: new PostgresLiveSessionInputs(this.t.dataSource), holdMs: 120_000 } : {}),
      clock: { now: () => new Date() },
      ids: new RandomIdGenerator(),
      minFrameIntervalMs: 100,
      watchCheckMs: 100,
      ...rest,
    });
    this.liveSessionsMade.push(sessions);
    return sessions;
  }

  /** The `configureContext` hook that keeps each portal run's context for `keptPage` and the cleanup. */
  readonly keepContext = async (context: BrowserContext): Promise<void> => {
    this.contexts.push(context);
  };

  /** The one page a held run kept open for the person (decision 0038). */
  keptPage(): Page {
    const kept = this.contexts.filter((context) => context.pages().length > 0);
    expect(kept).toHaveLength(1);
    return kept[0]!.pages()[0]!;
  }

  /** Opens `url` in the viewers' browser context. */
  async openView(url: string): Promise<Page> {
    if (this.viewers === null) {
      this.viewers = await this.site.newContext();
      // The person's clipboard: a test puts text on it and pastes with the shortcut (pasteThroughView).
      await this.viewers.grantPermissions(['clipboard-read', 'clipboard-write']);
    }
    const page = await this.viewers.newPage();
    await page.goto(url);
    return page;
  }

  /**
   * Creates the case's manual handoff and its access grant, then opens the grant on the (first) API process:
   * the interactive view of the page the run kept.
   */
  async openHandoffView(
    authorizationId: string,
    version: number,
  ): Promise<{
    handoffs: string;
    handoff: { manualHandoffId: string; version: number };
    grant: { id: string; url: string };
    view: Page;
  }> {
    const handoffs = `${BASE}/${authorizationId}/manual-handoffs`;
    const created = await this.call('POST', handoffs, {
      'Idempotency-Key': randomUUID(),
      'If-Match': `"${version}"`,
    });
    expect(created.status).toBe(201);
    const handoff = (await created.json()) as { manualHandoffId: string; version: number };
    const granted = await this.call('POST', `${handoffs}/${handoff.manualHandoffId}/access-grants`, {
      'Idempotency-Key': randomUUID(),
    });
    expect(granted.status).toBe(201);
    const grant = (await granted.json()) as { id: string; url: string };
    const view = await this.openView(`${this.api.baseUrl}${new URL(grant.url).pathname}`);
    // The grant leads to the interactive live view of the kept page, not to the sandbox session page.
    expect(view.url()).toMatch(new RegExp(`^${this.api.baseUrl}/live-sessions/`));
    expect(await view.locator('body').getAttribute('data-access')).toBe('interactive');
    return { handoffs, handoff, grant, view };
  }
}

/*
 * A person's hands on the interactive view. Where to act is read from the layout of the page the run keeps (the
 * test's stand-in for the person's eyes) as fractions of its viewport, which the picture shows; every action
 * itself goes through the view.
 */

/** Where, on the view's picture, a point of the portal page's viewport is shown. */
async function onPicture(view: Page, portalPage: Page, point: { x: number; y: number }) {
  const viewport = portalPage.viewportSize();
  await view.locator('#screen').scrollIntoViewIfNeeded();
  const screen = await view.locator('#screen').boundingBox();
  if (viewport === null || screen === null) throw new Error('the view shows no picture');
  const fx = point.x / viewport.width;
  const fy = point.y / viewport.height;
  expect(fy).toBeLessThan(1);
  return {
    x: fx * screen.width,
    y: fy * screen.height,
    page: { x: screen.x + fx * screen.width, y: screen.y + fy * screen.height },
  };
}

async function boxOf(portalPage: Page, selector: string) {
  const box = await portalPage.locator(selector).boundingBox();
  if (box === null) throw new Error(`${selector} is not shown`);
  return box;
}

/** Clicks, on the view, where `selector` is on the portal page. */
export async function clickThroughView(view: Page, portalPage: Page, selector: string): Promise<void> {
  const box = await boxOf(portalPage, selector);
  const at = await onPicture(view, portalPage, { x: box.x + box.width / 2, y: box.y + box.height / 2 });
  await view.locator('#screen').click({ position: { x: at.x, y: at.y } });
}

/** Types `text` into the field at `selector` through the view: a click on the field, then each key. */
export async function typeThroughView(
  view: Page,
  portalPage: Page,
  selector: string,
  text: string,
): Promise<void> {
  await clickThroughView(view, portalPage, selector);
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

/** Turns the wheel over the middle of the view's picture. */
export async function scrollThroughView(view: Page, deltaY: number): Promise<void> {
  await view.locator('#screen').scrollIntoViewIfNeeded();
  const screen = await view.locator('#screen').boundingBox();
  if (screen === null) throw new Error('the view shows no picture');
  await view.mouse.move(screen.x + screen.width / 2, screen.y + screen.height / 2);
  await view.mouse.wheel(0, deltaY);
}

/** Presses the button on the view where `from` is on the portal page, moves it to `to` in steps, releases it. */
export async function dragThroughView(
  view: Page,
  portalPage: Page,
  from: { x: number; y: number },
  to: { x: number; y: number },
): Promise<void> {
  const start = await onPicture(view, portalPage, from);
  const end = await onPicture(view, portalPage, to);
  await view.mouse.move(start.page.x, start.page.y);
  await view.mouse.down();
  await view.mouse.move(end.page.x, end.page.y, { steps: 12 });
  await view.mouse.up();
}

/** Puts `text` on the clipboard and pastes it with the shortcut while the view's picture has focus. */
export async function pasteThroughView(view: Page, text: string): Promise<void> {
  // A page expression as text: this compilation has no DOM types.
  await view.evaluate(`navigator.clipboard.writeText(${JSON.stringify(text)})`);
  await view.locator('#screen').focus();
  await view.keyboard.press('Control+V');
}

/** Posts each input straight to a view's `…/input`, as a script would: what the API answered to each. */
export async function postInputs(
  viewUrl: string,
  inputs: object[],
): Promise<Array<{ status: number; code: string | undefined }>> {
  const answers = [];
  for (const input of inputs) {
    const response = await fetch(`${viewUrl}/input`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = (await response.json()) as { error?: { code: string } };
    answers.push({ status: response.status, code: body.error?.code });
  }
  return answers;
}
