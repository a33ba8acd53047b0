/*
 * A child process that owns one embedded PostgreSQL for a test and starts or stops it on request (IPC messages
 * `start` and `stop`; answers `{event: 'started', url}`, `{event: 'stopped'}` or `{event: 'failed', message}`).
 * A child, because the embedded server's package is an ES module that Jest's CommonJS runtime cannot load;
 * Node (with tsx for the TypeScript) can. The data folder survives a stop, so a start brings the same
 * database back on the same port. The server is stopped when the parent goes away.
 */
import {
  startEmbeddedPostgres,
  type EmbeddedPostgresHandle,
} from '../../../../packages/persistence-postgres/src/database/embedded-postgres';

const [dataDir, port] = [process.argv[2]!, Number(process.argv[3])];
let server: EmbeddedPostgresHandle | null = null;

const send = (message: Record<string, unknown>) => process.send?.(message);

async function handle(command: unknown): Promise<void> {
  try {
    if (command === 'start') {
      server ??= await startEmbeddedPostgres({ dataDir, port, persistent: true });
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
