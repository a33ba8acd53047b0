import { bootstrapDatabase } from '@prior-auth/persistence-postgres';
import { ConfigError, createLogger, dataDir, loadConfig, onShutdownSignal } from '@prior-auth/platform';

/**
 * The worker process. It connects to the shared database and, once the processing pipeline lands, claims
 * work from it; any number of workers may run beside any number of API processes.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ name: 'worker', level: config.LOG_LEVEL });
  const database = await bootstrapDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: dataDir(),
    embeddedPort: config.EMBEDDED_POSTGRES_PORT,
    poolSize: config.DATABASE_POOL_SIZE,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    applicationName: 'prior-auth-worker',
  });
  logger.info({ concurrency: config.WORKER_CONCURRENCY }, 'worker ready');
  const idle = setInterval(() => undefined, 60_000);

  onShutdownSignal(
    async () => {
      clearInterval(idle);
      await database.close();
      logger.info('worker stopped');
    },
    (message) => logger.info(message),
  );
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError
      ? error.message
      : `worker failed to start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
