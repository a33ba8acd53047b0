import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createDataSource, JOB_TABLE } from '@prior-auth/persistence-postgres';
import { configSchema } from '@prior-auth/platform';
import { freePort, spawnApp, waitUntilAnswering } from '@prior-auth/test-support';
import { TEST_TENANT_ENV } from './test-tenant';

/*
 * The API, workers and the simulated payer website as the launcher runs them: separate processes sharing nothing
 * but PostgreSQL (and the file storage folder); the workers submit through their browsers to the website
 * (decision 0022). Their entry files run from TypeScript source, with the workspace packages mapped to their
 * sources too, so a test never runs a stale build.
 */

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

/** One JSON log line of an app. */
export type LogRecord = Record<string, unknown> & { msg?: string };

export class AppProcess {
  readonly output: string[] = [];
  readonly records: LogRecord[] = [];
  private readonly listeners = new Set<(record: LogRecord) => void>();

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => this.take(line));
    }
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines, to explain a failure. */
  tail(lines = 30): string {
    return `--- ${this.name} (last ${lines} lines) ---\n${this.output.slice(-lines).join('\n')}`;
  }

  waitForLog(predicate: (record: LogRecord) => boolean, description: string): Promise<LogRecord> {
    const seen = this.records.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolveRecord, reject) => {
      const onRecord = (record: LogRecord) => {
        if (!predicate(record)) return;
        cleanup();
        resolveRecord(record);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`${this.name} exited with ${code} before logging ${description}\n${this.tail()}`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${this.name} did not log ${description} in time\n${this.tail()}`));
      }, START_TIMEOUT_MS);
      const cleanup = () => {
        clearTimeout(timer);
        this.listeners.delete(onRecord);
        this.child.off('exit', onExit);
      };
      this.listeners.add(onRecord);
      this.child.once('exit', onExit);
    });
  }

  /** SIGTERM (the apps' graceful shutdown), SIGKILL if that takes too long. */
  async stop(): Promise<void> {
    if (!this.running) return;
    const exited = new Promise<void>((done) => this.child.once('exit', () => done()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  private take(line: string): void {
    this.output.push(line);
    if (!line.startsWith('{')) return;
    let record: LogRecord;
    try {
      record = JSON.parse(line) as LogRecord;
    } catch {
      return; // Not a log record (part of a stack trace, say): kept in `output` only.
    }
    this.records.push(record);
    for (const listener of [...this.listeners]) listener(record);
  }
}

export interface StackOptions {
  workers: number;
  /** Extra configuration for every worker. */
  workerEnv?: Record<string, string>;
  /** Extra configuration for the API. */
  apiEnv?: Record<string, string>;
}

/**
 * An API process and `workers` worker processes on the test database. Create it, then `start()` in beforeAll and
 * `stop()` in afterAll: `stop` ends whatever was started, also after a failed start.
 */
export class StackHarness {
  readonly workers: AppProcess[] = [];
  api: AppProcess | null = null;
  website: AppProcess | null = null;
  baseUrl = '';
  /** Where the simulated payer website answers. */
  payerSiteUrl = '';
  private readonly dataDir = mkdtempSync(join(tmpdir(), 'prior-auth-e2e-'));
  private readonly signingSecret = randomBytes(32).toString('hex');
  private readonly killOnExit = () => {
    // The test runner is going away without afterAll: never leave the apps running.
    for (const app of this.all()) if (app.running) app.child.kill('SIGKILL');
  };

  async start(options: StackOptions): Promise<void> {
    process.once('exit', this.killOnExit);
    const port = await freePort();
    this.baseUrl = `http://127.0.0.1:${port}`;
    const sitePort = await freePort();
    this.payerSiteUrl = `http://127.0.0.1:${sitePort}`;
    this.website = this.spawnApp('payer-sandbox', 'payer-sandbox', { PAYER_SANDBOX_PORT: String(sitePort) });
    // No PUBLIC_BASE_URL, as under the launcher: upload URLs name this port on localhost.
    const api = this.spawnApp('api', 'api', { PORT: String(port), ...options.apiEnv });
    this.api = api;
    const workers = Array.from({ length: options.workers }, (_, index) =>
      this.spawnApp(`worker-${index + 1}`, 'worker', {
        PAYER_SANDBOX_PORT: String(sitePort),
        BROWSER_EXECUTABLE_PATH: process.env.E2E_TEST_BROWSER!,
        ...options.workerEnv,
      }),
    );
    this.workers.push(...workers);
    await Promise.all([
      this.answering(api, `${this.baseUrl}/health`),
      this.answering(this.website, `${this.payerSiteUrl}/sign-in`),
      ...workers.map((w) => w.waitForLog((r) => r.msg === 'worker ready', 'its ready line')),
    ]);
  }

  /**
   * The API (and the website) is ready once `url` answers 200: its log is buffered
   * (packages/platform/src/logger.ts), so its ready line may come late.
   */
  private answering(app: AppProcess, url: string): Promise<void> {
    return waitUntilAnswering({ name: app.name, running: () => app.running, output: () => app.tail() }, url, {
      ready: (response) => response.status === 200,
      timeoutMs: START_TIMEOUT_MS,
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((app) => app.stop()));
    process.off('exit', this.killOnExit);
    if (this.all().length > 0) await dropUnfinishedJobs();
    rmSync(this.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  /** Fails with the apps' last log lines when one of them died. */
  assertRunning(): void {
    const dead = this.all().filter((app) => !app.running);
    if (dead.length > 0) {
      throw new Error(`app process exited: ${dead.map((app) => app.tail()).join('\n')}`);
    }
  }

  /** Log records of every worker, tagged with the worker that wrote them. */
  workerRecords(): Array<LogRecord & { worker: string }> {
    return this.workers.flatMap((w) => w.records.map((record) => ({ ...record, worker: w.name })));
  }

  /** The workers' last log lines that name `text` (a case id, say), to explain a case that did not move. */
  workerLinesAbout(text: string, lines = 40): string {
    const about = this.workers.flatMap((w) =>
      w.output.filter((line) => line.includes(text)).map((line) => `${w.name}: ${line}`),
    );
    return `--- worker lines naming ${text} (last ${lines} of ${about.length}) ---\n${about.slice(-lines).join('\n')}`;
  }

  /** Waits until the workers together have logged at least `count` records matching `predicate`. */
  async waitForWorkerRecords(
    predicate: (record: LogRecord) => boolean,
    count: number,
    description: string,
    timeoutMs = 60_000,
  ): Promise<LogRecord[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.assertRunning();
      const matching = this.workerRecords().filter(predicate);
      if (matching.length >= count) return matching;
      if (Date.now() > deadline) {
        throw new Error(`workers logged ${matching.length} of ${count} ${description}`);
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
  }

  private all(): AppProcess[] {
    return [...(this.api ? [this.api] : []), ...(this.website ? [this.website] : []), ...this.workers];
  }

  private spawnApp(
    name: string,
    app: 'api' | 'worker' | 'payer-sandbox',
    env: Record<string, string>,
  ): AppProcess {
    return new AppProcess(name, spawnApp(app, { ...this.baseEnv(), ...env }));
  }

  private baseEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Only what this harness sets: a developer's own configuration must not leak into the apps under test.
    for (const key of Object.keys(configSchema.shape)) delete env[key];
    for (const key of Object.values(TEST_TENANT_ENV)) delete env[key];
    for (const key of Object.keys(env)) if (key.startsWith('OTEL_')) delete env[key];
    return {
      ...env,
      DATABASE_URL: process.env.DATABASE_URL,
      HOST: '127.0.0.1',
      PRIOR_AUTH_DATA_DIR: this.dataDir,
      SIGNING_SECRET: this.signingSecret,
      LOG_LEVEL: 'info',
      DATABASE_POOL_SIZE: '6',
      SANDBOX_DECISION_DELAY_SECONDS: '0',
      WORKER_POLL_INTERVAL_MS: '100',
      SHUTDOWN_GRACE_MS: '2000',
      // A file's cases share one key and poll it concurrently: past the default budget (100 requests a second)
      // they would be answered 429. The limits themselves are tested in apps/api/test/rate-limits.api.spec.ts.
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
    };
  }
}

/**
 * The files of this package share one test database and run one after another. A file that failed half way
 * leaves jobs of its cases queued, which the next file's workers would otherwise pick up and run through their
 * browsers before that file's own cases: one failure would slow the next file into failing too.
 */
async function dropUnfinishedJobs(): Promise<void> {
  const dataSource = createDataSource({ url: process.env.DATABASE_URL!, poolSize: 1 });
  await dataSource.initialize();
  try {
    // A stack that failed to start may not have installed the queue's tables yet.
    const rows = (await dataSource.query(`SELECT to_regclass($1) IS NOT NULL AS installed`, [
      JOB_TABLE,
    ])) as Array<{
      installed: boolean;
    }>;
    if (rows[0]?.installed) await dataSource.query(`DELETE FROM ${JOB_TABLE} WHERE state < 'completed'`);
  } finally {
    await dataSource.destroy();
  }
}
