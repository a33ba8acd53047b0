import { randomBytes } from 'node:crypto';
import { sharedAdaptersModule } from '@prior-auth/composition';
import {
  type AccessGrantLedger,
  type BlobStore,
  type Clock,
  type CustomerPortalSessions,
  type Environment,
  type GrantIssuer,
  type HostResolver,
  type IdGenerator,
  type PayerPortal,
  type PipelineSettings,
  type ReplaySegments,
  type RuntimeSessions,
} from '@prior-auth/domain';
import {
  PlaywrightPayerPortal,
  ReplayRecorder,
  SANDBOX_PAYER_DEMO_ACCOUNT,
  SANDBOX_RECEIPT_CHANNEL,
  SANDBOX_REVIEW_WARNING,
  SandboxPayerSitePage,
  ScreencastLiveSessions,
  type ChromiumBrowser,
  type LiveRunSessions,
  type PlaywrightPayerPortalOptions,
  type ScreencastLiveSessionsOptions,
} from '@prior-auth/payer-portal';
import {
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  TypeOrmRuntimeSessionLedger,
} from '@prior-auth/persistence-postgres';
import { Container } from 'inversify';
import { type PgBoss } from 'pg-boss';
import { type DataSource } from 'typeorm';
import type { WebhookRetrySettings } from './webhooks/webhook-delivery.handler';
import { type SettledJob, type Worker, type WorkerLogger } from './worker';
import { WORKER_TOKENS, workerModule } from './worker.module';

export { END_ABANDONED_LIVE_SESSIONS_CRON, PURGE_CRON } from './worker.module';

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
  /** The link a `customer_login` review carries while the sign-in is held (decision 0046); none when absent. */
  liveViewUrl?: PlaywrightPayerPortalOptions['liveViewUrl'];
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
    ...(options.liveViewUrl === undefined ? {} : { liveViewUrl: options.liveViewUrl }),
  });
}

export interface PortalLiveSessionsOptions {
  dataSource: DataSource;
  /** Where every run's replay is recorded (decision 0045); the worker purges the same store. */
  replaySegments: ReplaySegments;
  clock: Clock;
  ids: IdGenerator;
  /** Told when a replay segment could not be kept (the run goes on). */
  onReplayError: (error: unknown) => void;
  /** Told when a run could not be shown live, or a frame not published (the run goes on). */
  onError: (error: unknown) => void;
  /** Tests look for viewers more often and hold pages less long. */
  timing?: Pick<ScreencastLiveSessionsOptions, 'watchCheckMs' | 'holdMs'>;
}

/**
 * The worker's live sessions, as the worker process runs its portals: every portal run a live session any API
 * process can show (decision 0033), a person's input on an interactive view reaching its page (0038), and every
 * run recorded as its replay (0045), all on PostgreSQL.
 */
export function createPortalLiveSessions(options: PortalLiveSessionsOptions): ScreencastLiveSessions {
  const { dataSource, clock } = options;
  return new ScreencastLiveSessions({
    ledger: new TypeOrmRuntimeSessionLedger(dataSource),
    frames: new PostgresLiveSessionFrames(dataSource),
    inputs: new PostgresLiveSessionInputs(dataSource),
    clock,
    ids: options.ids,
    replays: new ReplayRecorder({ segments: options.replaySegments, clock, onError: options.onReplayError }),
    onError: options.onError,
    ...options.timing,
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
   * revokes its grants in the close's transaction. The shared adapters module's signed grants when absent.
   */
  grants?: (ledger: AccessGrantLedger) => GrantIssuer;
  /** The sandbox's handoff sessions on the shared ledger when absent. */
  runtimeSessions?: RuntimeSessions;
  /**
   * Where grant and session links point (publicBaseUrl of the configuration): needed when `grants` or
   * `runtimeSessions` is absent, which then default to the shared adapters module's.
   */
  baseUrl?: string;
  /**
   * The process's blob store: the portals' evidence is kept there as `payer_evidence` files (decision 0020),
   * beside the uploaded documents the portal reads.
   */
  blobStore: BlobStore;
  /**
   * Signs list cursors (never handed out by the worker) and the default grants' and sessions' links, and opens
   * webhook secrets; a random one is fine for a worker that sends no webhooks.
   */
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
  /** Portal run replay segments (decision 0045): the expired ones purged on PURGE_CRON when given. */
  replaySegments?: ReplaySegments;
}

/**
 * The worker's composition root: the shared adapters module (the same one the API loads) and the worker's own
 * module, in one container (docs/decisions/0041-explicit-transactions-and-container-modules.md).
 */
export function createWorkerContainer(options: WorkerCompositionOptions): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.loadSync(
    sharedAdaptersModule({
      dataSource: options.dataSource,
      jobBoss: options.boss,
      signingSecret: options.signingSecret ?? randomBytes(32).toString('hex'),
      blobStore: options.blobStore,
      defaultActor: 'worker',
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.grants === undefined ? {} : { grants: options.grants }),
      ...(options.webhooks?.resolver === undefined ? {} : { hostResolver: options.webhooks.resolver }),
    }),
    workerModule(options),
  );
  return container;
}

/** The worker, resolved from its container. */
export function createWorker(options: WorkerCompositionOptions): Worker {
  return createWorkerContainer(options).get<Worker>(WORKER_TOKENS.Worker);
}
