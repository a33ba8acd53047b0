import { randomBytes } from 'node:crypto';
import { SignedAccessGrants } from '@prior-auth/grants';
import { SandboxPayerPortal, SandboxRuntimeSessions } from '@prior-auth/payer-portal';
import {
  bootstrapDatabase,
  startJobBoss,
  TypeOrmAccessGrantStore,
  TypeOrmRuntimeSessionLedger,
} from '@prior-auth/persistence-postgres';
import {
  ConfigError,
  createLogger,
  dataDir,
  loadConfig,
  onShutdownSignal,
  publicBaseUrl,
  RandomIdGenerator,
  TokenSigner,
} from '@prior-auth/platform';
import { createWorker, sandboxPipelineSettings } from './composition';

/**
 * The worker process: claims pipeline jobs from the shared database and runs them. Any number of workers may
 * run beside any number of API processes; they share nothing but PostgreSQL.
 *
 * Payer portals: the sandbox environment is answered by the simulated payer (decision 13). No production
 * payer portal adapter exists yet, and none is registered: production cases fail with
 * `payer_portal_unavailable` instead of ever reaching the simulation.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ name: 'worker', level: config.LOG_LEVEL });
  let closing = false;
  const database = await bootstrapDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: dataDir(),
    embeddedPort: config.EMBEDDED_POSTGRES_PORT,
    poolSize: config.DATABASE_POOL_SIZE,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    applicationName: 'prior-auth-worker',
    onPoolError: (error) => {
      if (!closing) logger.warn({ error: error.message }, 'database connection lost');
    },
  });
  if (config.DATABASE_POOL_SIZE < config.WORKER_CONCURRENCY + 1) {
    logger.warn(
      { poolSize: config.DATABASE_POOL_SIZE, concurrency: config.WORKER_CONCURRENCY },
      'DATABASE_POOL_SIZE below WORKER_CONCURRENCY + 1: jobs will wait for connections',
    );
  }

  const sandbox = new SandboxPayerPortal({
    decisionDelayMs: config.SANDBOX_DECISION_DELAY_SECONDS * 1_000,
    latencyMs: config.SANDBOX_PORTAL_LATENCY_MS,
  });
  // The worker revokes grants and releases sessions (handoff expiry); it never hands a URL out, so without a
  // configured secret a random one is as good as any.
  const signingSecret = config.SIGNING_SECRET ?? randomBytes(32).toString('hex');
  const signer = new TokenSigner(signingSecret);
  const clock = { now: () => new Date() };
  const ids = new RandomIdGenerator();
  const baseUrl = publicBaseUrl(config);
  // pg-boss's own pool: claims, heartbeats, LISTEN for new jobs, supervision and schedules (decision 0016).
  const boss = await startJobBoss({
    connectionString: database.url,
    role: 'worker',
    onError: (error: Error) => {
      if (!closing) logger.warn({ error: error.message }, 'job queue error');
    },
  });
  const worker = createWorker({
    dataSource: database.dataSource,
    boss,
    logger,
    concurrency: config.WORKER_CONCURRENCY,
    pollIntervalMs: config.WORKER_POLL_INTERVAL_MS,
    portals: { sandbox },
    pipelineSettings: { sandbox: sandboxPipelineSettings(sandbox.decisionDelayMs) },
    grantIssuer: new SignedAccessGrants({
      ledger: new TypeOrmAccessGrantStore(database.dataSource),
      signer,
      baseUrl,
      clock,
      ids,
    }),
    runtimeSessions: new SandboxRuntimeSessions({
      ledger: new TypeOrmRuntimeSessionLedger(database.dataSource),
      signer,
      baseUrl,
      clock,
      ids,
    }),
    signingSecret,
  });
  await worker.start();
  logger.info(
    {
      workerId: worker.workerId,
      concurrency: config.WORKER_CONCURRENCY,
      sandboxDecisionDelayMs: sandbox.decisionDelayMs,
    },
    'worker ready',
  );

  onShutdownSignal(
    async () => {
      // Running steps get the grace period; the rest are released for another worker.
      await worker.stop({ graceMs: config.SHUTDOWN_GRACE_MS });
      closing = true;
      // What the grace period did not finish was handed back above; nothing is left for pg-boss to fail.
      await boss.stop({ graceful: false });
      await database.close();
      logger.info('worker process exiting');
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
