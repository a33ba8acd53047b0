import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { configSchema } from '@prior-auth/platform';
import { TEST_TENANT_ENV } from './test-tenant';

/*
 * The API and workers as the launcher runs them: separate processes sharing nothing but PostgreSQL (and the
 * file storage folder). Their entry files run from TypeScript source, with the workspace packages mapped to their
 * sources too, so a test never runs a stale build.
 */

const APPS_DIR = resolve(__dirname, '../../../..');
const SOURCES_TSCONFIG = join(__dirname, 'tsconfig.sources.json');
const START_TIMEOUT_MS = 30_000;
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

/** A port nobody listens on right now: the API needs it before it starts, for the file URLs it signs. */
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

export interface StackOptions {
  workers: number;
  /** Extra configuration for every worker. */
  workerEnv?: Record<string, string>;
}

/**
 * An API process and `workers` worker processes on the test database. Create it, then `start()` in beforeAll and
 * `stop()` in afterAll: `stop` ends whatever was started, also after a failed start.
 */
export class StackHarness {
  readonly workers: AppProcess[] = [];
  api: AppProcess | null = null;
  baseUrl = '';
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
    // No PUBLIC_BASE_URL, as under the launcher: upload URLs name this port on localhost.
    const api = this.spawnApp('api', 'api', { PORT: String(port) });
    this.api = api;
    const workers = Array.from({ length: options.workers }, (_, index) =>
      this.spawnApp(`worker-${index + 1}`, 'worker', options.workerEnv ?? {}),
    );
    this.workers.push(...workers);
    await Promise.all([
      this.apiAnswering(api),
      ...workers.map((w) => w.waitForLog((r) => r.msg === 'worker ready', 'its ready line')),
    ]);
  }

  /**
   * The API is ready once `/health` answers: its log is buffered (packages/platform/src/logger.ts), so its
   * ready line may come late.
   */
  private async apiAnswering(api: AppProcess): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (!api.running) throw new Error(`api exited before answering\n${api.tail()}`);
      const status = await fetch(`${this.baseUrl}/health`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return;
      if (Date.now() > deadline) throw new Error(`api did not answer /health in time\n${api.tail()}`);
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((app) => app.stop()));
    process.off('exit', this.killOnExit);
    rmSync(this.dataDir, { recursive: true, force: true });
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

  /** Waits until the workers together have logged at least `count` records matching `predicate`. */
  async waitForWorkerRecords(
    predicate: (record: LogRecord) => boolean,
    count: number,
    description: string,
    timeoutMs = 20_000,
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
    return [...(this.api ? [this.api] : []), ...this.workers];
  }

  private spawnApp(name: string, app: 'api' | 'worker', env: Record<string, string>): AppProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', join(APPS_DIR, app, 'src', 'main.ts')], {
      cwd: join(APPS_DIR, app),
      env: { ...this.baseEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new AppProcess(name, child);
  }

  private baseEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Only what this harness sets: a developer's own configuration must not leak into the apps under test.
    for (const key of Object.keys(configSchema.shape)) delete env[key];
    for (const key of Object.values(TEST_TENANT_ENV)) delete env[key];
    return {
      ...env,
      TSX_TSCONFIG_PATH: SOURCES_TSCONFIG,
      DATABASE_URL: process.env.DATABASE_URL,
      HOST: '127.0.0.1',
      PRIOR_AUTH_DATA_DIR: this.dataDir,
      SIGNING_SECRET: this.signingSecret,
      LOG_LEVEL: 'info',
      DATABASE_POOL_SIZE: '6',
      SANDBOX_DECISION_DELAY_SECONDS: '0',
      WORKER_POLL_INTERVAL_MS: '100',
      SHUTDOWN_GRACE_MS: '2000',
    };
  }
}
