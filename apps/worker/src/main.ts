import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBlobStore } from '@prior-auth/blob-storage';
import { SignedAccessGrants } from '@prior-auth/grants';
import { type PayerPortal } from '@prior-auth/domain';
import { ChromiumBrowser, SandboxPayerPortal, SandboxRuntimeSessions } from '@prior-auth/payer-portal';
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
  flushLogger,
  loadConfig,
  onShutdownSignal,
  publicBaseUrl,
  RandomIdGenerator,
  TokenSigner,
  type AppConfig,
} from '@prior-auth/platform';
import { createSandboxPayerPortal, createWorker, sandboxPipelineSettings } from './composition';

/**
 * The worker process: claims pipeline jobs from the shared database and runs them. Any number of workers may
 * run beside any number of API processes; they share nothing but PostgreSQL.
 *
 * Payer portals: with PAYER_SANDBOX_URL set, the sandbox environment submits through the simulated payer
 * website with this process's one browser (decision 0017); without it, through the stateless simulated payer
 * (decision 0013) until the browser path is the default. No production payer portal adapter exists yet, and
 * none is registered: production cases fail with `payer_portal_unavailable` instead of ever reaching the
 * simulation.
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

  // The worker revokes grants and releases sessions (handoff expiry); it never hands a URL out, so without a
  // configured secret a random one is as good as any.
  const signingSecret = config.SIGNING_SECRET ?? randomBytes(32).toString('hex');
  const decisionDelayMs = config.SANDBOX_DECISION_DELAY_SECONDS * 1_000;
  const website = config.PAYER_SANDBOX_URL
    ? await browserPortal(config, config.PAYER_SANDBOX_URL, signingSecret).catch(async (error: unknown) => {
        await database.close();
        throw error;
      })
    : null;
  const sandbox: PayerPortal =
    website?.portal ??
    new SandboxPayerPortal({ decisionDelayMs, latencyMs: config.SANDBOX_PORTAL_LATENCY_MS });
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
    pipelineSettings: { sandbox: sandboxPipelineSettings(decisionDelayMs) },
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
    // Log lines are buffered (packages/platform/src/logger.ts): a settled job's lines go out with it.
    onJobSettled: () => logger.flush(),
  });
  await worker.start();
  logger.info(
    {
      workerId: worker.workerId,
      concurrency: config.WORKER_CONCURRENCY,
      sandboxDecisionDelayMs: decisionDelayMs,
      sandboxPortal: website ? 'payer website through the browser' : 'stateless simulator',
    },
    'worker ready',
  );
  // Log lines are buffered (packages/platform/src/logger.ts); the ready line is what a supervisor waits for.
  await flushLogger(logger);

  onShutdownSignal(
    async () => {
      // Running steps get the grace period; the rest are released for another worker.
      await worker.stop({ graceMs: config.SHUTDOWN_GRACE_MS });
      closing = true;
      // What the grace period did not finish was handed back above; nothing is left for pg-boss to fail.
      await boss.stop({ graceful: false });
      await website?.close();
      await database.close();
      logger.info('worker process exiting');
    },
    (message) => logger.info(message),
  );
}

/**
 * The sandbox portal through the browser: the one browser of this process (a missing or broken one stops the
 * start with one clear line, decision 0017) and the stored files the portal uploads (decision 0006).
 */
async function browserPortal(
  config: AppConfig,
  siteUrl: string,
  signingSecret: string,
): Promise<{ portal: PayerPortal; close: () => Promise<void> }> {
  const browser = new ChromiumBrowser({ executablePath: config.BROWSER_EXECUTABLE_PATH });
  await browser.ensureStarted();
  const blobStorage = createBlobStore(
    config.BLOB_STORAGE_URL ?? pathToFileURL(join(dataDir(), 'blobs')).href,
    { publicBaseUrl: publicBaseUrl(config), signingSecret },
  );
  const portal = createSandboxPayerPortal({
    browser,
    siteUrl,
    readAttachment: async (attachment) => {
      const stat = await blobStorage.store.stat(attachment.storageKey);
      if (stat === null) throw new Error(`attached file ${attachment.fileId} has no stored bytes`);
      return blobStorage.store.readHead(attachment.storageKey, stat.sizeBytes);
    },
  });
  return {
    portal,
    close: async () => {
      await browser.close();
      await blobStorage.close();
    },
  };
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError
      ? error.message
      : `worker failed to start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
