import { randomBytes } from 'node:crypto';
import {
  type BlobStore,
  type Clock,
  type CustomerPortalSessions,
  type AccessGrantLedger,
  EndAbandonedLiveSessionsUseCase,
  type Environment,
  type GrantIssuer,
  type PayerPortal,
  type PipelineSettings,
  type RuntimeSessions,
} from '@prior-auth/domain';
import {
  PlaywrightPayerPortal,
  SANDBOX_PAYER_DEMO_ACCOUNT,
  SANDBOX_RECEIPT_CHANNEL,
  SANDBOX_REVIEW_WARNING,
  SandboxPayerSitePage,
  type ChromiumBrowser,
  type LiveRunSessions,
  type PlaywrightPayerPortalOptions,
} from '@prior-auth/payer-portal';
import {
  END_ABANDONED_LIVE_SESSIONS_QUEUE,
  KeysetCursors,
  PostgresEventRetention,
  PostgresIdempotencyStore,
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  PURGE_EVENTS_QUEUE,
  PURGE_IDEMPOTENCY_QUEUE,
  PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE,
  TypeOrmRuntimeSessionLedger,
  TypeOrmUnitOfWork,
} from '@prior-auth/persistence-postgres';
import { RandomIdGenerator, TokenSigner } from '@prior-auth/platform';
import { type PgBoss } from 'pg-boss';
import { type DataSource } from 'typeorm';
import { createGiveUpRouter, createJobHandlers } from './job-handlers';
import type { HostResolver } from '@prior-auth/domain';
import { AesGcmWebhookSecretVault, DnsHostResolver } from '@prior-auth/platform';
import type { WebhookRetrySettings } from './webhooks/webhook-delivery.handler';
import { webhookDeliveryConsumer } from './webhooks/webhook-delivery.consumer';
import type { QueueConsumer } from './worker';
import { type ScheduledTask, type SettledJob, Worker, type WorkerLogger } from './worker';

/**
 * Expired idempotency records (kept ≥ 24 h, decision 0023) are purged every 10 minutes, by one worker of the
 * cluster (a pg-boss schedule). Finished jobs are deleted by pg-boss itself after their queue's retention.
 */
export const PURGE_CRON = '*/10 * * * *';
/**
 * Live sessions left by a process that died are ended every minute (decision 0039): within about two minutes
 * of the death (LIVE_SESSION_ABANDONED_AFTER_MS without a beat, then the next run).
 */
export const END_ABANDONED_LIVE_SESSIONS_CRON = '* * * * *';
/**
 * The sandbox re-polls a pending decision at least this often: with a decision delay of 0 a `pending` case
 * would otherwise be polled in a tight loop.
 */
export const MIN_SANDBOX_POLL_INTERVAL_MS = 1_000;

/**
 * Pipeline timing for the sandbox: the sandbox payer decides `decisionDelayMs` after the receipt (earlier polls
 * answer pending), so the first poll is scheduled then rather than wasted before.
 */
export function sandboxPipelineSettings(decisionDelayMs: number): Partial<PipelineSettings> {
  return { decisionPollIntervalMs: Math.max(decisionDelayMs, MIN_SANDBOX_POLL_INTERVAL_MS) };
}

export interface SandboxPortalOptions {
  /** The process's one browser (decision 0017); the caller closes it at shutdown. */
  browser: ChromiumBrowser;
  /** Where the simulated payer website answers (payerSandboxUrl of the configuration). */
  siteUrl: string;
  /** The verified bytes of an attached document, from the BlobStore. */
  readAttachment: PlaywrightPayerPortalOptions['readAttachment'];
  /** Screenshots after every step (default true); the confirmation and letter are always kept. */
  stepScreenshots?: boolean;
  /** How long a whole portal run may take (default the adapter's). */
  runTimeoutMs?: number;
  /** Shows each portal run live (decision 0033); runs are not shown when absent. */
  liveSessions?: LiveRunSessions;
  /** Customers' portal sessions shared by every worker (decision 0044); this process's memory when absent. */
  customerSessions?: CustomerPortalSessions;
}

/**
 * The sandbox's payer portal: the simulated payer website driven by the browser, signed in with its demo
 * account (decision 0017). Every sandbox organization shares that account, as they share the sandbox.
 */
export function createSandboxPayerPortal(options: SandboxPortalOptions): PayerPortal {
  return new PlaywrightPayerPortal({
    browser: options.browser,
    site: new SandboxPayerSitePage(options.siteUrl),
    credentials: async () => SANDBOX_PAYER_DEMO_ACCOUNT,
    readAttachment: options.readAttachment,
    channel: SANDBOX_RECEIPT_CHANNEL,
    reviewWarnings: [SANDBOX_REVIEW_WARNING],
    ...(options.stepScreenshots === undefined ? {} : { stepScreenshots: options.stepScreenshots }),
    ...(options.runTimeoutMs === undefined ? {} : { runTimeoutMs: options.runTimeoutMs }),
    ...(options.liveSessions === undefined ? {} : { liveSessions: options.liveSessions }),
    ...(options.customerSessions === undefined ? {} : { customerSessions: options.customerSessions }),
  });
}

export interface WorkerCompositionOptions {
  dataSource: DataSource;
  /** pg-boss, started as a worker (startJobBoss); the caller stops it after the worker. */
  boss: PgBoss;
  logger: WorkerLogger;
  concurrency: number;
  pollIntervalMs: number;
  /** Payer portal per environment; an environment without one fails its cases with payer_portal_unavailable. */
  portals: Partial<Record<Environment, PayerPortal>>;
  pipelineSettings?: Partial<Record<Environment, Partial<PipelineSettings>>>;
  /**
   * The grant service on a ledger: the worker builds it on each transaction's own, so a handoff it closes
   * revokes its grants in the close's transaction.
   */
  grants: (ledger: AccessGrantLedger) => GrantIssuer;
  runtimeSessions: RuntimeSessions;
  /**
   * The process's blob store: the portals' evidence is kept there as `payer_evidence` files (decision 0020),
   * beside the uploaded documents the portal reads.
   */
  blobStore: BlobStore;
  /** Only signs list cursors, which the worker never hands out; a random one is fine when absent. */
  signingSecret?: string;
  /** Schedules the idempotency purge (PURGE_CRON); tests that do not purge leave it off. */
  purge?: boolean;
  workerId?: string;
  clock?: Clock;
  /**
   * Webhook deliveries (docs/decisions/0031-events-and-webhooks.md): sent when the process has the
   * `SIGNING_SECRET` that sealed the endpoints' secrets (`signingSecret`). Tests shorten the retry backoff
   * and may replace the host resolver.
   */
  webhooks?: { retry?: Partial<WebhookRetrySettings>; resolver?: HostResolver };
  onJobSettled?: (settled: SettledJob) => void;
  /** Customers' portal sessions the portals share (decision 0044): purged on PURGE_CRON when given. */
  customerSessions?: CustomerPortalSessions;
}

/** The worker's composition root: PostgreSQL adapters, the domain's pipeline use cases, the worker. */
export function createWorker(options: WorkerCompositionOptions): Worker {
  const clock: Clock = options.clock ?? { now: () => new Date() };
  const signer = new TokenSigner(options.signingSecret ?? randomBytes(32).toString('hex'));
  const unitOfWork = new TypeOrmUnitOfWork(options.dataSource, {
    cursors: new KeysetCursors(signer),
    jobBoss: options.boss,
    grants: options.grants,
    defaultActor: 'worker',
  });
  const ids = new RandomIdGenerator();
  const handlers = createJobHandlers({
    unitOfWork,
    clock,
    ids,
    portals: options.portals,
    pipelineSettings: options.pipelineSettings,
    runtimeSessions: options.runtimeSessions,
    blobStore: options.blobStore,
  });
  const giveUp = createGiveUpRouter({ unitOfWork, clock, ids, pipelineSettings: options.pipelineSettings });
  const scheduledTasks: ScheduledTask[] = [];
  if (options.purge ?? true) {
    const idempotency = new PostgresIdempotencyStore(options.dataSource);
    scheduledTasks.push({
      queue: PURGE_IDEMPOTENCY_QUEUE,
      cron: PURGE_CRON,
      run: () => idempotency.purgeExpired(clock.now()),
    });
    // Events past their retention (docs/decisions/0031-events-and-webhooks.md), on the same schedule.
    const events = new PostgresEventRetention(options.dataSource);
    scheduledTasks.push({
      queue: PURGE_EVENTS_QUEUE,
      cron: PURGE_CRON,
      run: () => events.purgeExpired(clock.now()),
    });
    const customerSessions = options.customerSessions;
    if (customerSessions !== undefined) {
      scheduledTasks.push({
        queue: PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE,
        cron: PURGE_CRON,
        run: () => customerSessions.purgeExpired(clock.now()),
      });
    }
  }
  const sweep = new EndAbandonedLiveSessionsUseCase({
    unitOfWork,
    clock,
    ids,
    runtimeSessions: options.runtimeSessions,
    ledger: new TypeOrmRuntimeSessionLedger(options.dataSource),
    frames: new PostgresLiveSessionFrames(options.dataSource),
    inputs: new PostgresLiveSessionInputs(options.dataSource),
  });
  scheduledTasks.push({
    queue: END_ABANDONED_LIVE_SESSIONS_QUEUE,
    cron: END_ABANDONED_LIVE_SESSIONS_CRON,
    run: async () => (await sweep.execute()).length,
  });
  const queueConsumers: QueueConsumer[] = [];
  if (options.signingSecret !== undefined) {
    queueConsumers.push(
      webhookDeliveryConsumer({
        dataSource: options.dataSource,
        boss: options.boss,
        clock,
        vault: new AesGcmWebhookSecretVault(options.signingSecret),
        resolver: options.webhooks?.resolver ?? new DnsHostResolver(),
        ...(options.webhooks?.retry === undefined ? {} : { retry: options.webhooks.retry }),
      }),
    );
  }
  return new Worker({
    boss: options.boss,
    queueConsumers,
    handlers,
    giveUp,
    logger: options.logger,
    concurrency: options.concurrency,
    pollIntervalMs: options.pollIntervalMs,
    scheduledTasks,
    ...(options.workerId === undefined ? {} : { workerId: options.workerId }),
    ...(options.onJobSettled === undefined ? {} : { onJobSettled: options.onJobSettled }),
  });
}
