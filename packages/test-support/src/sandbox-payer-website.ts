import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { PortalCase } from '@prior-auth/domain';
import {
  ChromiumBrowser,
  PlaywrightPayerPortal,
  SANDBOX_PAYER_DEMO_ACCOUNT,
  SandboxOperatorSitePage,
} from '@prior-auth/payer-portal';
import { spawnApp } from './app-sources';
import { freePort } from './free-port';
import { waitUntilAnswering } from './wait-until-answering';

/** A minimal valid PDF: the bytes of every attached document (the website accepts only real PDF bytes). */
export const PDF_DOCUMENT = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/**
 * The simulated payer website (apps/payer-sandbox) as its own process on the test database (decision 0022).
 * Apps never import each other, so the website runs as `pnpm start` runs it.
 */
class PayerWebsiteProcess {
  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
  ) {}

  static async start(options: { logLevel: string }): Promise<PayerWebsiteProcess> {
    const port = await freePort();
    const child = spawnApp('payer-sandbox', {
      PATH: process.env.PATH,
      DATABASE_URL: process.env.DATABASE_URL,
      HOST: '127.0.0.1',
      PAYER_SANDBOX_PORT: String(port),
      SANDBOX_DECISION_DELAY_SECONDS: '0',
      // Suites sign the demo account in from many browsers at once (apps/payer-sandbox tests taking codes once).
      PAYER_SANDBOX_ONE_TIME_CODES: 'reusable',
      LOG_LEVEL: options.logLevel,
    });
    const output: string[] = [];
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => output.push(line));
    }
    const url = `http://127.0.0.1:${port}`;
    const running = () => child.exitCode === null && child.signalCode === null;
    try {
      await waitUntilAnswering(
        { name: 'payer website', running, output: () => output.join('\n') },
        `${url}/`,
      );
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    return new PayerWebsiteProcess(url, child);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((done) => this.child.once('exit', () => done()));
    this.child.kill('SIGTERM');
    await exited;
  }
}

/**
 * The payer website and the one browser of a test file. Each app's tests extend it with the portal they drive
 * the website with (as that app binds it); `launch` answers the subclass it is called on.
 */
export class SandboxPayerWebsite {
  constructor(
    readonly url: string,
    readonly browser: ChromiumBrowser,
    private readonly website: PayerWebsiteProcess,
  ) {}

  static async launch<W extends SandboxPayerWebsite>(
    this: new (url: string, browser: ChromiumBrowser, website: PayerWebsiteProcess) => W,
    options: { browserExecutablePath: string | undefined; logLevel: string },
  ): Promise<W> {
    const browser = new ChromiumBrowser({ executablePath: options.browserExecutablePath });
    // Started side by side; a website that started is stopped when the browser did not (and the reverse).
    const [website, browserStarted] = await Promise.allSettled([
      PayerWebsiteProcess.start({ logLevel: options.logLevel }),
      browser.ensureStarted(),
    ]);
    if (website.status === 'rejected' || browserStarted.status === 'rejected') {
      await browser.close();
      if (website.status === 'fulfilled') await website.value.stop();
      throw website.status === 'rejected' ? website.reason : (browserStarted as PromiseRejectedResult).reason;
    }
    return new this(website.value.url, browser, website.value);
  }

  /** A fresh context of this website's browser (a viewer's own, sharing nothing with the portal runs). */
  newContext(): ReturnType<ChromiumBrowser['newContext']> {
    return this.browser.newContext();
  }

  /**
   * An operator after a manual handoff: submits the case at the website by hand (the human check answered)
   * and returns the reference number the confirmation page showed.
   */
  async submitAsOperator(portalCase: PortalCase, key: string): Promise<string> {
    const operator = new PlaywrightPayerPortal({
      browser: this.browser,
      site: new SandboxOperatorSitePage(this.url),
      credentials: async () => SANDBOX_PAYER_DEMO_ACCOUNT,
      readAttachment: async () => PDF_DOCUMENT,
      stepScreenshots: false,
    });
    const result = await operator.submit(portalCase, { idempotencyKey: key });
    if (!('receipt' in result)) throw new Error('the operator could not submit at the payer website');
    return result.receipt.referenceNumber!;
  }

  async close(): Promise<void> {
    await this.browser.close();
    await this.website.stop();
  }
}
