import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findFreePort } from '@prior-auth/persistence-postgres';

type ChildEvent =
  { event: 'started'; url: string } | { event: 'stopped' } | { event: 'failed'; message: string };

/**
 * A throwaway embedded PostgreSQL owned by one test, whatever DATABASE_URL says: it can be stopped and started
 * again (same data, same port) to play a database outage. Runs in a child process (see postgres-server.child.ts).
 */
export class OwnedPostgres {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dataDir: string,
    readonly url: string,
  ) {}

  static async start(): Promise<OwnedPostgres> {
    // The embedded server's own folder (the package hands it to the `postgres` user when run as root).
    const dataDir = await mkdtemp(join(tmpdir(), 'api-owned-pg-'));
    const port = await findFreePort();
    const child = fork(resolve(__dirname, 'postgres-server.child.ts'), [dataDir, String(port)], {
      // From the repository root, where the TypeScript loader is installed.
      cwd: resolve(__dirname, '../../../..'),
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const started = await command(child, 'start');
    if (started.event !== 'started') throw new Error('the embedded PostgreSQL did not start');
    return new OwnedPostgres(child, dataDir, started.url);
  }

  /** Stops the server (connections are terminated, new ones refused) and resolves once it has exited. */
  async stop(): Promise<void> {
    await command(this.child, 'stop');
  }

  /** Starts it again on the same data and port; resolves once it accepts connections. */
  async restart(): Promise<void> {
    await command(this.child, 'start');
  }

  /** Stops the server for good and removes its data. */
  async dispose(): Promise<void> {
    if (this.child.connected) await command(this.child, 'stop');
    this.child.disconnect();
    await rm(this.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

function command(child: ChildProcess, name: 'start' | 'stop'): Promise<ChildEvent> {
  return new Promise((done, fail) => {
    const onExit = (code: number | null) => fail(new Error(`the PostgreSQL child exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (message: ChildEvent) => {
      child.off('exit', onExit);
      if (message.event === 'failed') fail(new Error(`PostgreSQL ${name} failed: ${message.message}`));
      else done(message);
    });
    child.send(name);
  });
}
