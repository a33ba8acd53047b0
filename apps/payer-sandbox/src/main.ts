import { ConfigError, createLogger, loadConfig, onShutdownSignal } from '@prior-auth/platform';
import { startPayerSandbox } from './payer-sandbox.server';
import { DEMO_ACCOUNT } from './sandbox-store';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ name: 'payer-sandbox', level: config.LOG_LEVEL });
  if (!config.DATABASE_URL)
    throw new ConfigError(['DATABASE_URL: the payer sandbox keeps its state in PostgreSQL; set it']);
  const sandbox = await startPayerSandbox({
    databaseUrl: config.DATABASE_URL,
    host: config.HOST,
    port: config.PAYER_SANDBOX_PORT,
    decisionDelayMs: config.SANDBOX_DECISION_DELAY_SECONDS * 1000,
    oneTimeCodes: config.PAYER_SANDBOX_ONE_TIME_CODES,
  });
  logger.info(
    { url: sandbox.url, demoUsername: DEMO_ACCOUNT.username },
    `simulated payer website on ${sandbox.url} (demo account ${DEMO_ACCOUNT.username}, see the README)`,
  );
  onShutdownSignal(
    async () => {
      await sandbox.close();
      logger.info('payer sandbox stopped');
    },
    (msg) => logger.info(msg),
  );
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError
      ? error.message
      : `payer sandbox failed: ${error instanceof Error ? error.stack : String(error)}`,
  );
  process.exit(1);
});
