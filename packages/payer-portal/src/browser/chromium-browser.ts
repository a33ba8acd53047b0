import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { BrowserUnavailableError, resolveBrowserExecutable } from './browser-executable';

/**
 * Flags Chromium needs here: headless as root (no sandbox, no GPU), and none of its background connections,
 * which a closed network refuses and which slow every start.
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
];

/** How long a failed call waits for its browser to report that it ended, before the failure stands. */
const BROWSER_END_WAIT_MS = 2_000;

/** Whether `browser` has ended, or ends within `ms`. */
function hasEnded(browser: Browser, ms: number): Promise<boolean> {
  if (!browser.isConnected()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const ended = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      browser.off('disconnected', ended);
      resolve(false);
    }, ms);
    browser.once('disconnected', ended);
  });
}

export interface ChromiumBrowserOptions {
  /** A system Chromium (BROWSER_EXECUTABLE_PATH); unset → the packaged one. */
  executablePath?: string;
  /** How long launching may take before it is a start-up error (default 30 s). */
  launchTimeoutMs?: number;
}

/**
 * One Chromium per process, launched on first use and relaunched if it dies; each portal run gets a fresh
 * context of it (its own cookies and storage), closed when the run ends.
 */
export class ChromiumBrowser {
  private browser: Promise<Browser> | null = null;
  private closed = false;

  constructor(private readonly options: ChromiumBrowserOptions = {}) {}

  /** Launches now (start-up check): throws BrowserUnavailableError when no browser can run. */
  async ensureStarted(): Promise<string> {
    return (await this.current()).version();
  }

  /** A fresh context; `storageState` starts it with a session an earlier context kept. */
  async newContext(options: Pick<BrowserContextOptions, 'storageState'> = {}): Promise<BrowserContext> {
    for (let attempt = 1; ; attempt += 1) {
      const launched = this.current();
      const browser = await launched;
      try {
        return await browser.newContext({
          acceptDownloads: true,
          viewport: { width: 1100, height: 900 },
          ...options,
        });
      } catch (error) {
        // A browser that died a moment ago fails this call before it reports its end (and with various
        // messages): when it does end, forget it and launch another, once. A live browser's refusal stands.
        if (attempt > 1 || this.closed || !(await hasEnded(browser, BROWSER_END_WAIT_MS))) throw error;
        this.forget(launched);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser;
    this.browser = null;
    if (browser) await (await browser.catch(() => null))?.close().catch(() => undefined);
  }

  private current(): Promise<Browser> {
    if (this.closed) return Promise.reject(new BrowserUnavailableError('The browser was shut down.'));
    if (this.browser) return this.browser;
    const launching = this.launch();
    this.browser = launching;
    launching.then(
      (browser) => browser.on('disconnected', () => this.forget(launching)),
      () => this.forget(launching),
    );
    return launching;
  }

  /** Drops `launched` as the current browser, unless another has replaced it already. */
  private forget(launched: Promise<Browser>): void {
    if (this.browser === launched) this.browser = null;
  }

  private async launch(): Promise<Browser> {
    const executablePath = await resolveBrowserExecutable(this.options.executablePath);
    // Loaded with the first browser: a process that never starts one (the API serving no live session, most
    // test files) does not pay for reading Playwright's large bundles.
    const { chromium } = await import('playwright-core');
    return chromium
      .launch({
        executablePath,
        headless: true,
        args: CHROMIUM_FLAGS,
        timeout: this.options.launchTimeoutMs ?? 30_000,
        // The process closes the browser itself, after its shutdown grace: on SIGTERM the worker lets the
        // running portal runs finish first (decision 0013), which a browser closed by the signal would break.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      })
      .catch((error: unknown) => {
        throw new BrowserUnavailableError(
          `Chromium at ${executablePath} did not start: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`,
          { cause: error },
        );
      });
  }
}
