import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import { freePort, spawnApp, waitUntilAnswering } from '@prior-auth/test-support';

const START_TIMEOUT_MS = 45_000;
const STOP_TIMEOUT_MS = 10_000;

/**
 * The API as its own process (`src/main.ts` from source, as `pnpm start` runs it) on the test database, for
 * tests of what must hold across API processes. Its base URL is its own address, so the grant and live-view
 * URLs it answers lead back to it.
 */
export class ApiProcess {
  private readonly output: string[] = [];

  private constructor(
    readonly baseUrl: string,
    private readonly child: ChildProcess,
    private readonly dataDir: string,
  ) {
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => this.output.push(line));
    }
  }

  static async start(env: { SIGNING_SECRET: string } & Record<string, string>): Promise<ApiProcess> {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const dataDir = await mkdtemp(join(tmpdir(), 'api-process-'));
    const child = spawnApp('api', {
      PATH: process.env.PATH,
      DATABASE_URL: process.env.DATABASE_URL,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      PRIOR_AUTH_DATA_DIR: dataDir,
      BLOB_STORAGE_URL: pathToFileURL(join(dataDir, 'blobs')).href,
      DATABASE_POOL_SIZE: '4',
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '1000',
      ...env,
    });
    const started = new ApiProcess(baseUrl, child, dataDir);
    try {
      await started.answering();
      return started;
    } catch (error) {
      child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      throw error;
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise<void>((done) => this.child.once('exit', () => done()));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    await rm(this.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  private answering(): Promise<void> {
    const running = () => this.child.exitCode === null && this.child.signalCode === null;
    return waitUntilAnswering(
      { name: 'API process', running, output: () => this.output.join('\n') },
      `${this.baseUrl}/health`,
      { ready: (response) => response.status === 200, timeoutMs: START_TIMEOUT_MS },
    );
  }
}
