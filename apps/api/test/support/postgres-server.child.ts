/*
 * A child process that owns one embedded PostgreSQL for a test and starts or stops it on request (IPC messages
 * `start` and `stop`; answers `{event: 'started', url}`, `{event: 'stopped'}` or `{event: 'failed', message}`).
 * A child, because the embedded server's package is an ES module that Jest's CommonJS runtime cannot load;
 * Node (with tsx for the TypeScript) can. The data folder survives a stop, so a start brings the same
 * database back on the same port. The server is stopped when the parent goes away.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EmbeddedPostgresHandle, startEmbeddedPostgres } from '@prior-auth/persistence-postgres';

// The package's source, like the Jest suites use (not its build output); loaded at run time so the type check
// of this package does not compile another package's sources.
const EMBEDDED_POSTGRES_SOURCE = resolve(
  __dirname,
  '../../../../packages/persistence-postgres/src/database/embedded-postgres.ts',
);

const [dataDir, port] = [process.argv[2]!, Number(process.argv[3])];
let server: EmbeddedPostgresHandle | null = null;

async function start(): Promise<EmbeddedPostgresHandle> {
  const source = (await import(pathToFileURL(EMBEDDED_POSTGRES_SOURCE).href)) as {
    startEmbeddedPostgres: typeof startEmbeddedPostgres;
  };
  return source.startEmbeddedPostgres({ dataDir, port, persistent: true });
}

const send = (message: Record<string, unknown>) => process.send?.(message);

async function handle(command: unknown): Promise<void> {
  try {
    if (command === 'start') {
      server ??= await start();
      send({ event: 'started', url: server.url });
    } else if (command === 'stop') {
      await server?.stop();
      server = null;
      send({ event: 'stopped' });
    }
  } catch (error) {
    send({ event: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
}

process.on('message', (command) => void handle(command));
process.on('disconnect', () => {
  void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
});
