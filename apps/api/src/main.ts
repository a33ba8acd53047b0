import 'reflect-metadata';
// First: tracing patches http, express and pg as they load.
import { tracing } from './instrumentation';
import {
  ConfigError,
  createLogger,
  dataDir,
  flushLogger,
  loadConfig,
  onShutdownSignal,
} from '@prior-auth/platform';
import { FsBlobStore } from '@prior-auth/blob-storage';
import { bootstrapDatabase, startJobBoss } from '@prior-auth/persistence-postgres';
import type { ReadAuditRecorder } from './audit/read-audit.recorder';
import { createApp } from './app';
import { buildContainer } from './container';
import { listen, listenOptions } from './http-server';
import { type LiveViewRouterDeps } from './live-view/live-view.routes';
import { openBlobStorage } from './files/blob-storage';
import { TOKENS } from './tokens';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ name: 'api', level: config.LOG_LEVEL });
  // Before the database: a bad BLOB_STORAGE_URL stops the start-up at once.
  const blobStorage = openBlobStorage(config);
  if (blobStorage.store instanceof FsBlobStore) {
    // Leftovers of uploads cut off by a crash; an upload in progress is never this old.
    await blobStorage.store.removeStaleTempFiles();
  }
  const database = await bootstrapDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: dataDir(),
    embeddedPort: config.EMBEDDED_POSTGRES_PORT,
    poolSize: config.DATABASE_POOL_SIZE,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    applicationName: 'prior-auth-api',
  });
  for (const warning of database.warnings) logger.warn(warning);
  // Commands enqueue worker jobs in their own transaction; this instance only sends (decision 0016).
  const jobBoss = await startJobBoss({ connectionString: database.url, role: 'producer' });
  const container = buildContainer({ config, logger, dataSource: database.dataSource, blobStorage, jobBoss });
  const app = createApp(container);
  const running = await listen(app, config.PORT, config.HOST, listenOptions(config));
  logger.info(
    { host: config.HOST, port: running.port },
    `API listening on http://${config.HOST}:${running.port}`,
  );

  onShutdownSignal(
    async () => {
      await running.close(config.SHUTDOWN_GRACE_MS);
      await container.get<LiveViewRouterDeps>(TOKENS.LiveView).hub.close();
      // Audit rows of the last reads (decision 0035) are written before the database closes.
      await container.get<ReadAuditRecorder>(TOKENS.ReadAudit).close();
      await blobStorage.close();
      await jobBoss.stop({ graceful: false });
      await database.close();
      await tracing?.shutdown();
      logger.info('API stopped');
      // The log is written asynchronously: its last lines go out before the process exits.
      await flushLogger(logger);
    },
    (message) => logger.info(message),
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error('API failed to start:', error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
