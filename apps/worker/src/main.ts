// First: tracing patches http and pg as they load.
import { tracing } from './instrumentation';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBlobStore } from '@prior-auth/blob-storage';
import { type BlobStore, type PayerPortal, type PortalCaseAttachment } from '@prior-auth/domain';
import { ChromiumBrowser } from '@prior-auth/payer-portal';
import {
  bootstrapDatabase,
  PostgresCustomerPortalSessions,
  PostgresReplaySegments,
  startJobBoss,
} from '@prior-auth/persistence-postgres';
import {
  ConfigError,
  createLogger,
  CredentialsCipher,
  dataDir,
  flushLogger,
  loadConfig,
  onShutdownSignal,
  payerSandboxUrl,
  publicBaseUrl,
  RandomIdGenerator,
} from '@prior-auth/platform';
import { liveSessionReadUrl } from '@prior-auth/presentation';
import {
  createPortalLiveSessions,
  createSandboxPayerPortal,
  createWorker,
  sandboxPipelineSettings,
} from './composition';
import { meteredPayerPortal } from './operations/metered-payer-portal';
import { startWorkerHttpServer } from './operations/worker-http-server';
import { createWorkerMetrics } from './operations/worker-metrics';
import { createProductionPayerPortal } from './production-portal';

/**
 * The worker process: claims pipeline jobs from the shared database and runs them. Any number of workers may
 * run beside any number of API processes; they share nothing but PostgreSQL.
 *
 * Payer portals: the sandbox environment submits through the simulated payer website (PAYER_SANDBOX_URL,
 * by default the one `pnpm start` serves) with this process's one browser (decisions 0017 and 0022).
 * Production submits through each payer's configured portal connection with the organization's stored
 * credentials (decision 0021), with the same browser, never to the simulation.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ name: 'worker', level: config.LOG_LEVEL });
  let closing = false;
  let stopping = false;
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
  for (const warning of database.warnings) logger.warn(warning);
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
  // One blob store per process: the portals read attached documents from it, the pipeline keeps evidence in it.
  const blobStorage = createBlobStore(
    config.BLOB_STORAGE_URL ?? pathToFileURL(join(dataDir(), 'blobs')).href,
    { publicBaseUrl: publicBaseUrl(config), signingSecret },
  );
  const siteUrl = payerSandboxUrl(config);
  // One browser per process (decision 0017); a missing or broken one stops the start with one clear line.
  const browser = new ChromiumBrowser({ executablePath: config.BROWSER_EXECUTABLE_PATH });
  await browser.ensureStarted().catch(async (error: unknown) => {
    await blobStorage.close();
    await database.close();
    throw error;
  });
  const readAttachment = attachmentReader(blobStorage.store);
  const clock = { now: () => new Date() };
  const ids = new RandomIdGenerator();
  // Every portal run keeps a replay for 30 days, its frames in the blob store (decision 0045).
  const replaySegments = new PostgresReplaySegments(database.dataSource, blobStorage.store);
  // Every portal run is a live session any API process can show (decision 0033).
  const liveSessions = createPortalLiveSessions({
    dataSource: database.dataSource,
    replaySegments,
    clock,
    ids,
    onReplayError: (error) => {
      if (!closing) logger.warn({ err: error }, "a portal run's replay segment could not be kept");
    },
    onError: (error) => {
      if (!closing) logger.warn({ err: error }, 'a portal run could not be shown live');
    },
  });
  const cipher = config.CREDENTIALS_KEY ? new CredentialsCipher(config.CREDENTIALS_KEY) : null;
  // Customers' portal sessions, sealed with the credentials' key, serve every worker (decision 0044).
  const customerSessions =
    cipher === null ? undefined : new PostgresCustomerPortalSessions(database.dataSource, cipher);
  // A customer_login review links to the case's live-session read on the API (decision 0046).
  const liveViewUrl = (authorizationId: string) => liveSessionReadUrl(publicBaseUrl(config), authorizationId);
  const metrics = createWorkerMetrics(database.dataSource, () => liveSessions.counts());
  const sandbox: PayerPortal = meteredPayerPortal(
    createSandboxPayerPortal({
      browser,
      siteUrl,
      readAttachment,
      liveSessions,
      customerSessions,
      liveViewUrl,
    }),
    'sandbox',
    metrics.portalRuns,
  );
  const production = meteredPayerPortal(
    createProductionPayerPortal({
      dataSource: database.dataSource,
      browser,
      cipher,
      readAttachment,
      liveSessions,
      customerSessions,
      liveViewUrl,
    }),
    'production',
    metrics.portalRuns,
  );
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
    portals: { sandbox, production },
    pipelineSettings: { sandbox: sandboxPipelineSettings(decisionDelayMs) },
    // Grants and handoff sessions are the shared adapters module's, signed with this secret, linking here.
    baseUrl: publicBaseUrl(config),
    blobStore: blobStorage.store,
    signingSecret,
    customerSessions,
    replaySegments,
    // Log lines are buffered (packages/platform/src/logger.ts): a settled job's lines go out with it.
    onJobSettled: () => logger.flush(),
  });
  await worker.start();
  // Probes and metrics on a port of their own, only when one is configured (docs/decisions/0034-operability.md).
  const http =
    config.WORKER_HTTP_PORT === undefined
      ? null
      : await startWorkerHttpServer(
          {
            dataSource: database.dataSource,
            metrics,
            browserAvailable: () => browserAnswers(browser),
            accepting: () => !closing && !stopping,
          },
          config.WORKER_HTTP_PORT,
          config.HOST,
        );
  logger.info(
    {
      workerId: worker.workerId,
      ...(http ? { httpPort: http.port } : {}),
      concurrency: config.WORKER_CONCURRENCY,
      sandboxDecisionDelayMs: decisionDelayMs,
      payerSandboxUrl: siteUrl,
    },
    'worker ready',
  );
  // The website may start after the worker (the launcher starts both at once): a warning, not a refusal, as
  // portal runs that cannot reach it are retried like any outage.
  void websiteAnswers(siteUrl).then((answered) => {
    if (!answered && !closing) {
      logger.warn(
        { payerSandboxUrl: siteUrl },
        'the simulated payer website does not answer; sandbox portal runs will be retried',
      );
    }
  });
  // Log lines are buffered (packages/platform/src/logger.ts); the ready line is what a supervisor waits for.
  await flushLogger(logger);

  onShutdownSignal(
    async () => {
      stopping = true;
      // Running steps get the grace period; the rest are released for another worker.
      await worker.stop({ graceMs: config.SHUTDOWN_GRACE_MS });
      await http?.close();
      closing = true;
      // What the grace period did not finish was handed back above; nothing is left for pg-boss to fail.
      await boss.stop({ graceful: false });
      await liveSessions.close();
      await browser.close();
      await blobStorage.close();
      await database.close();
      await tracing?.shutdown();
      logger.info('worker process exiting');
    },
    (message) => logger.info(message),
  );
}

/** The verified bytes of an attached document (decision 0006), which the portals upload. */
function attachmentReader(blobStore: BlobStore) {
  return async (attachment: PortalCaseAttachment): Promise<Uint8Array> => {
    const stat = await blobStore.stat(attachment.storageKey);
    if (stat === null) throw new Error(`attached file ${attachment.fileId} has no stored bytes`);
    return blobStore.readHead(attachment.storageKey, stat.sizeBytes);
  };
}

/** Whether the browser runs (relaunched if it died), within 5 s: the worker's readiness. */
async function browserAnswers(browser: ChromiumBrowser): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), 5_000);
  });
  try {
    return await Promise.race([
      browser.ensureStarted().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the website answers within about 15 s (for the start-up warning only). */
async function websiteAnswers(url: string): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const answered = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(2_000) }).then(
      () => true,
      () => false,
    );
    if (answered) return true;
    await new Promise((resolve) => setTimeout(resolve, 500).unref());
  }
  return false;
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError
      ? error.message
      : `worker failed to start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
