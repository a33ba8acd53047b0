import { WORKER_JOB_TYPES, type WorkerJobType } from '@prior-auth/domain';
import { PgBoss, type ConstructorOptions, type Queue } from 'pg-boss';

/** The job queue client, named here so apps that only enqueue do not import pg-boss themselves. */
export type JobBoss = PgBoss;

/** pg-boss keeps its tables in this schema of the application's database (decision 0016). */
export const JOB_QUEUE_SCHEMA = 'pgboss';

/** Jobs whose retries ran out (or that failed permanently) land here; the worker resolves their case. */
export const GIVEN_UP_JOBS_QUEUE = 'given_up_jobs';

/** The cluster-wide schedule that purges expired idempotency records. */
export const PURGE_IDEMPOTENCY_QUEUE = 'purge_idempotency_records';

/** The cluster-wide schedule that purges events past their retention (docs/decisions/0031-events-and-webhooks.md). */
export const PURGE_EVENTS_QUEUE = 'purge_events';

/**
 * The cluster-wide schedule that ends live sessions whose owning process stopped beating
 * (docs/decisions/0039-customer-sign-in-and-abandoned-live-sessions.md).
 */
export const END_ABANDONED_LIVE_SESSIONS_QUEUE = 'end_abandoned_live_sessions';

/**
 * The cluster-wide schedule that purges customers' payer portal sessions past their lifetime or their case's
 * dealings with the payer (docs/decisions/0044-customer-sessions-shared-by-workers.md).
 */
export const PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE = 'purge_customer_portal_sessions';

/**
 * The cluster-wide schedule that deletes portal run replay segments past their 30 days, bytes and rows
 * (docs/decisions/0045-portal-run-replays.md).
 */
export const PURGE_REPLAY_SEGMENTS_QUEUE = 'purge_replay_segments';

/**
 * Webhook deliveries (docs/decisions/0031-events-and-webhooks.md). A failed send is rescheduled with its own
 * backoff, by a new job holding the delivery's new attempt token
 * (docs/decisions/0037-webhook-versions-attempts-and-request-schemas.md); pg-boss's retries only cover a
 * worker that died or a database error.
 */
export const WEBHOOK_DELIVERY_QUEUE = 'deliver_webhook';

const DAY_SECONDS = 24 * 60 * 60;

/**
 * Per-type retry, backoff, expiry and heartbeat (decision 0016). Every type makes 10 attempts with
 * exponential backoff from 1 s up to 5 min; a running job heartbeats, so a killed worker's job is failed
 * (and retried) about `heartbeatSeconds` after its last beat, while a live step keeps its claim for up to
 * `expireInSeconds`. Completed jobs are kept 7 days; failed ones end in GIVEN_UP_JOBS_QUEUE.
 */
export type JobQueueSettings = Required<
  Pick<
    Queue,
    'retryLimit' | 'retryDelay' | 'retryBackoff' | 'retryDelayMax' | 'expireInSeconds' | 'heartbeatSeconds'
  >
>;

const PIPELINE_STEP: JobQueueSettings = {
  retryLimit: 9,
  retryDelay: 1,
  retryBackoff: true,
  retryDelayMax: 300,
  // Portal calls are bounded by their own timeouts; a step still running after 15 minutes is stuck.
  expireInSeconds: 15 * 60,
  heartbeatSeconds: 10,
};

export const JOB_QUEUE_SETTINGS: Readonly<Record<WorkerJobType, JobQueueSettings>> = {
  [WORKER_JOB_TYPES.process]: PIPELINE_STEP,
  [WORKER_JOB_TYPES.reconcile]: PIPELINE_STEP,
  [WORKER_JOB_TYPES.pollDecision]: { ...PIPELINE_STEP, expireInSeconds: 5 * 60 },
  [WORKER_JOB_TYPES.reconcileHandoff]: { ...PIPELINE_STEP, expireInSeconds: 5 * 60 },
  // Revokes grants and releases a session: database work only.
  [WORKER_JOB_TYPES.expireHandoff]: { ...PIPELINE_STEP, expireInSeconds: 60 },
  // Records one event: database work only (docs/decisions/0031-events-and-webhooks.md).
  [WORKER_JOB_TYPES.decisionOverdue]: { ...PIPELINE_STEP, expireInSeconds: 60 },
};

/** Resolving a given-up job is database work; it is retried until it succeeds and kept 30 days. */
const GIVEN_UP_SETTINGS: Omit<Queue, 'name'> = {
  ...PIPELINE_STEP,
  retryLimit: 20,
  expireInSeconds: 60,
  deleteAfterSeconds: 30 * DAY_SECONDS,
  notify: true,
};

/** Every queue the application uses, with its settings. */
export function jobQueueDefinitions(): Queue[] {
  const pipeline = Object.entries(JOB_QUEUE_SETTINGS).map(([name, settings]) => ({
    name,
    policy: 'standard',
    ...settings,
    deleteAfterSeconds: 7 * DAY_SECONDS,
    deadLetter: GIVEN_UP_JOBS_QUEUE,
    notify: true,
  }));
  return [
    { name: GIVEN_UP_JOBS_QUEUE, policy: 'standard', ...GIVEN_UP_SETTINGS },
    ...pipeline,
    // One purge at a time across the cluster; a missed run is simply the next one. The heartbeat frees the
    // queue soon after a worker dies holding a purge, instead of blocking purges until it expires.
    {
      name: PURGE_IDEMPOTENCY_QUEUE,
      policy: 'singleton',
      retryLimit: 0,
      expireInSeconds: 10 * 60,
      heartbeatSeconds: 10,
      deleteAfterSeconds: DAY_SECONDS,
    },
    // A send is bounded by its 10 s timeout; a killed worker's job is retried after its heartbeat stops.
    {
      name: WEBHOOK_DELIVERY_QUEUE,
      policy: 'standard',
      ...PIPELINE_STEP,
      retryLimit: 50,
      expireInSeconds: 60,
      deleteAfterSeconds: 7 * DAY_SECONDS,
      notify: true,
    },
    {
      name: PURGE_EVENTS_QUEUE,
      policy: 'singleton',
      retryLimit: 0,
      expireInSeconds: 10 * 60,
      heartbeatSeconds: 10,
      deleteAfterSeconds: DAY_SECONDS,
    },
    // One statement per ended session; a missed minute is the next one.
    {
      name: END_ABANDONED_LIVE_SESSIONS_QUEUE,
      policy: 'singleton',
      retryLimit: 0,
      expireInSeconds: 60,
      heartbeatSeconds: 10,
      deleteAfterSeconds: DAY_SECONDS,
    },
    {
      name: PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE,
      policy: 'singleton',
      retryLimit: 0,
      expireInSeconds: 10 * 60,
      heartbeatSeconds: 10,
      deleteAfterSeconds: DAY_SECONDS,
    },
    {
      name: PURGE_REPLAY_SEGMENTS_QUEUE,
      policy: 'singleton',
      retryLimit: 0,
      expireInSeconds: 10 * 60,
      heartbeatSeconds: 10,
      deleteAfterSeconds: DAY_SECONDS,
    },
  ];
}

export interface JobBossOptions {
  connectionString: string;
  /** Connections of pg-boss's own pool (claims, heartbeats, maintenance); enqueues use the caller's. */
  poolSize?: number;
  /**
   * Workers supervise (expiry, heartbeats, retention) and run schedules; API processes only enqueue.
   * Either way pg-boss coordinates through the database, so each runs once per cluster.
   */
  role: 'worker' | 'producer';
  /** How often supervision looks for expired and silent jobs, in seconds (tests shorten it). */
  superviseIntervalSeconds?: number;
  applicationName?: string;
  onError?: (error: Error) => void;
}

/**
 * Starts pg-boss on the application's database and makes sure every queue exists with its settings. Safe
 * with several processes starting at once: pg-boss installs and migrates its schema, and creates queues,
 * under advisory locks.
 */
export async function startJobBoss(options: JobBossOptions): Promise<PgBoss> {
  const worker = options.role === 'worker';
  const supervise = options.superviseIntervalSeconds ?? 5;
  const config: ConstructorOptions = {
    connectionString: options.connectionString,
    schema: JOB_QUEUE_SCHEMA,
    max: options.poolSize ?? (worker ? 4 : 2),
    application_name: options.applicationName ?? (worker ? 'prior-auth-worker-jobs' : 'prior-auth-jobs'),
    migrate: true,
    supervise: worker,
    schedule: worker,
    useListenNotify: worker,
    superviseIntervalSeconds: supervise,
    monitorIntervalSeconds: supervise,
    registerInstance: worker,
    // A job carries the trace context of the request that enqueued it, so the worker's span continues that
    // trace; without a tracing SDK registered (the default) pg-boss's spans are no-ops and no context is stored
    // (docs/decisions/0034-operability.md).
    openTelemetry: { enabled: true, propagateContext: true },
  };
  const boss = new PgBoss(config);
  boss.on('error', (error: Error) => options.onError?.(error));
  await boss.start({ attempts: 5 });
  try {
    await ensureJobQueues(boss);
  } catch (error) {
    await boss.stop({ graceful: false }).catch(() => undefined);
    throw error;
  }
  return boss;
}

/** Creates missing queues and brings existing ones to the current settings. */
export async function ensureJobQueues(boss: PgBoss): Promise<void> {
  const existing = new Map((await boss.getQueues()).map((queue) => [queue.name, queue]));
  for (const definition of jobQueueDefinitions()) {
    const { name, ...settings } = definition;
    if (!existing.has(name)) {
      await boss.createQueue(name, settings);
      continue;
    }
    // Settings pg-boss fixes at creation (policy, dead letter, heartbeat) need a new queue to change.
    const { policy: _policy, partition: _partition, deadLetter: _deadLetter, ...changeable } = settings;
    const { heartbeatSeconds: _heartbeat, retryDelayMax: _retryDelayMax, ...updatable } = changeable;
    await boss.updateQueue(name, updatable);
  }
}
