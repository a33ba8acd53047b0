import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { type PayerPortal, type PortalCase } from '@prior-auth/domain';
import {
  ChromiumBrowser,
  PlaywrightPayerPortal,
  SANDBOX_PAYER_DEMO_ACCOUNT,
  SandboxOperatorSitePage,
} from '@prior-auth/payer-portal';
import { type DataSource } from 'typeorm';
import { createSandboxPayerPortal } from '../../src/composition';

const REPO_DIR = resolve(__dirname, '../../../..');
const START_TIMEOUT_MS = 30_000;

/** A minimal valid PDF: the bytes of every attached document (the website accepts only real PDF bytes). */
export const PDF_DOCUMENT = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/**
 * The simulated payer website (apps/payer-sandbox) as its own process on the test database, and the one
 * browser of the test file's workers. Apps never import each other, so the website runs as `pnpm start`
 * runs it; its counters are read from its schema.
 */
export class PayerWebsite {
  private constructor(
    readonly url: string,
    readonly browser: ChromiumBrowser,
    private readonly child: ChildProcess,
  ) {}

  static async start(): Promise<PayerWebsite> {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(REPO_DIR, 'apps', 'payer-sandbox', 'src', 'main.ts')],
      {
        cwd: join(REPO_DIR, 'apps', 'payer-sandbox'),
        env: {
          PATH: process.env.PATH,
          TSX_TSCONFIG_PATH: join(__dirname, 'tsconfig.sources.json'),
          DATABASE_URL: process.env.DATABASE_URL,
          HOST: '127.0.0.1',
          PAYER_SANDBOX_PORT: String(port),
          SANDBOX_DECISION_DELAY_SECONDS: '0',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const browser = new ChromiumBrowser({ executablePath: process.env.WORKER_TEST_BROWSER });
    try {
      const [url] = await Promise.all([
        answering(child, `http://127.0.0.1:${port}`),
        browser.ensureStarted(),
      ]);
      return new PayerWebsite(url, browser, child);
    } catch (error) {
      child.kill('SIGKILL');
      await browser.close();
      throw error;
    }
  }

  /** The sandbox portal a worker submits through: this website, this file's browser unless another is given. */
  portal(browser: ChromiumBrowser = this.browser): PayerPortal {
    return createSandboxPayerPortal({
      browser,
      siteUrl: this.url,
      readAttachment: async () => PDF_DOCUMENT,
      // Step screenshots cost a third of a run; the confirmation and the letter are always kept.
      stepScreenshots: false,
    });
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

  /** Requests the website received under a provider's reference (the idempotency key). */
  static async submissionCount(dataSource: DataSource, key: string): Promise<number> {
    const rows: Array<{ count: number }> = await dataSource.query(
      'SELECT count(*)::int AS count FROM payer_sandbox.requests WHERE external_key = $1',
      [key],
    );
    return rows[0]!.count;
  }

  async close(): Promise<void> {
    await this.browser.close();
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((done) => this.child.once('exit', () => done()));
    this.child.kill('SIGTERM');
    await exited;
  }
}

/** A port nobody listens on right now, for the website to take. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === 'string') throw new Error('no TCP port was assigned');
  return address.port;
}

/**
 * Resolves once the website answers at `url` (its log is buffered, so readiness is asked, not read); its
 * output explains a failed start.
 */
async function answering(child: ChildProcess, url: string): Promise<string> {
  const output: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => output.push(line));
  }
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`payer website exited with ${child.exitCode}:\n${output.join('\n')}`);
    const answered = await fetch(`${url}/`, { redirect: 'manual' }).then(
      () => true,
      () => false,
    );
    if (answered) return url;
    if (Date.now() > deadline) throw new Error(`payer website did not start in time:\n${output.join('\n')}`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}
