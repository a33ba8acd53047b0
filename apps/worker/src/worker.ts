import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type Environment, type TenantScope } from '@prior-auth/domain';
import {
  GIVEN_UP_JOBS_QUEUE,
  JOB_TABLE,
  PURGE_IDEMPOTENCY_QUEUE,
  END_ABANDONED_LIVE_SESSIONS_QUEUE,
  PURGE_EVENTS_QUEUE,
  PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE,
  PURGE_REPLAY_SEGMENTS_QUEUE,
  type QueuedJobData,
} from '@prior-auth/persistence-postgres';
import { type JobResult as BossJobResult, type JobWithMetadata, type PgBoss } from 'pg-boss';
import { type GivenUpJob, type JobHandlers } from './job-handlers';
import { describeJobError, isPermanentJobFailure, PermanentJobError } from './retry-policy';

/** Structured logging (pino's shape); never given case data. */
export interface WorkerLogger {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** A job as the handlers see it. */
export interface WorkerJob {
  id: string;
  type: string;
  authorizationId: string;
  scope: TenantScope;
  payload: Record<string, unknown>;
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
}

export type JobSettlement =
  | { status: 'completed'; outcome: string }
  | { status: 'failed'; error: string; permanent: boolean }
  | { status: 'gave_up'; consequence: string }
  | { status: 'released' };

export interface SettledJob {
  job: WorkerJob;
  settlement: JobSettlement;
  durationMs: number;
}

/** Cluster-wide periodic work: a pg-boss schedule, so one worker of the cluster runs each occurrence. */
export interface ScheduledTask {
  queue:
    | typeof PURGE_IDEMPOTENCY_QUEUE
    | typeof PURGE_EVENTS_QUEUE
    | typeof END_ABANDONED_LIVE_SESSIONS_QUEUE
    | typeof PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE
    | typeof PURGE_REPLAY_SEGMENTS_QUEUE;
  /** Cron expression (UTC). */
  cron: string;
  run(now: Date): Promise<unknown>;
}

/**
 * A queue whose jobs are not a case's pipeline step (webhook deliveries): its data is handed to `run` as is.
 * A throw fails the job and pg-boss retries it per the queue's settings; a killed worker's job is retried
 * once its heartbeat lapses.
 */
export interface QueueConsumer {
  queue: string;
  run(data: unknown): Promise<string>;
}

export interface WorkerOptions {
  boss: PgBoss;
  handlers: JobHandlers;
  /** Resolves the case of a job pg-boss gave up on (its dead-letter queue); returns what it did, for logs. */
  giveUp: (job: GivenUpJob) => Promise<string>;
  logger: WorkerLogger;
  /** Jobs run at once (WORKER_CONCURRENCY), across all types. */
  concurrency: number;
  /** How often an idle worker looks for due jobs besides notifications (WORKER_POLL_INTERVAL_MS, ≥ 500). */
  pollIntervalMs: number;
  workerId?: string;
  scheduledTasks?: ScheduledTask[];
  queueConsumers?: QueueConsumer[];
  /** Called after each job is settled (tests and benchmarks observe progress with it). */
  onJobSettled?: (settled: SettledJob) => void;
}

/** `output.error` of a job handed back at shutdown. */
export const WORKER_SHUTDOWN = 'worker_shutdown';

const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'production'];

function toWorkerJob(job: JobWithMetadata<QueuedJobData>): WorkerJob {
  const data = job.data;
  if (
    typeof data?.authorizationId !== 'string' ||
    typeof data.organizationId !== 'string' ||
    !ENVIRONMENTS.includes(data.environment)
  ) {
    throw new PermanentJobError('invalid_job_payload', `Job ${job.id} (${job.name}) has no case or tenant.`);
  }
  return {
    id: job.id,
    type: job.name,
    authorizationId: data.authorizationId,
    scope: { organizationId: data.organizationId, environment: data.environment },
    payload: data.payload ?? {},
    attempt: job.retryCount + 1,
    maxAttempts: job.retryLimit + 1,
  };
}

/** A counting semaphore: WORKER_CONCURRENCY across the per-type pg-boss workers. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(size: number) {
    this.free = size;
  }
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.free += 1;
  }
}

interface Running {
  job: JobWithMetadata<QueuedJobData>;
  done: Promise<unknown>;
}

/**
 * The worker: one pg-boss worker per job type (WORKER_JOB_TYPES) and one for the given-up queue, sharing
 * `concurrency` slots. pg-boss claims, heartbeats, retries with backoff and dead-letters (decision 0016);
 * this class only routes a job to its handler and maps the outcome: success completes it, a permanent
 * failure sends it straight to the given-up queue, anything else fails the attempt (retried, or given up
 * once the type's attempts are used). Given-up jobs go to `giveUp`, which runs the domain's decision.
 *
 * `stop` stops fetching, lets running steps finish within the grace period and hands back those that do not
 * without counting their attempt; the domain's optimistic guards make a step that still ends afterwards
 * harmless, and pg-boss refuses its settlement (the attempt fence).
 */
export class Worker {
  readonly workerId: string;
  private readonly slots: Slots;
  private readonly running = new Map<string, Running>();
  private readonly released = new Set<string>();
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  private stopped: Promise<void> | null = null;

  constructor(private readonly options: WorkerOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError('concurrency must be a positive integer');
    }
    this.workerId =
      options.workerId ?? `worker-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.slots = new Slots(options.concurrency);
  }

  get activeJobs(): number {
    return this.running.size;
  }

  private get queues(): string[] {
    return [
      ...Object.keys(this.options.handlers),
      GIVEN_UP_JOBS_QUEUE,
      ...(this.options.scheduledTasks ?? []).map((t) => t.queue),
      ...(this.options.queueConsumers ?? []).map((c) => c.queue),
    ];
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('a worker can be started once');
    this.state = 'running';
    const { boss, concurrency } = this.options;
    // Notifications wake a worker for jobs due at once; delayed ones (polls, retries) are found by polling.
    const interval = Math.max(0.5, this.options.pollIntervalMs / 1_000);
    const polling = { pollingIntervalSeconds: interval, notifyPollingIntervalSeconds: interval };
    const options = {
      ...polling,
      batchSize: 1,
      localConcurrency: concurrency,
      includeMetadata: true,
    } as const;
    for (const type of Object.keys(this.options.handlers)) {
      await boss.work<QueuedJobData>(type, { ...options, perJobResults: true }, (jobs) =>
        this.runBatch(jobs as Array<JobWithMetadata<QueuedJobData>>, (job) => this.runStep(job)),
      );
    }
    await boss.work<QueuedJobData>(GIVEN_UP_JOBS_QUEUE, { ...options, perJobResults: true }, (jobs) =>
      this.runBatch(jobs as Array<JobWithMetadata<QueuedJobData>>, (job) => this.resolveGivenUp(job)),
    );
    for (const task of this.options.scheduledTasks ?? []) {
      await boss.schedule(task.queue, task.cron);
      await boss.work(task.queue, polling, async () => {
        const result = await task.run(new Date());
        this.options.logger.debug({ task: task.queue, result }, 'scheduled task done');
      });
    }
    for (const consumer of this.options.queueConsumers ?? []) {
      await boss.work(
        consumer.queue,
        { ...polling, batchSize: 1, localConcurrency: concurrency },
        async ([job]) => {
          if (job === undefined) return;
          const outcome = await consumer.run(job.data);
          this.options.logger.debug({ queue: consumer.queue, jobId: job.id, outcome }, 'job done');
        },
      );
    }
    this.options.logger.info(
      { workerId: this.workerId, concurrency, types: Object.keys(this.options.handlers) },
      'worker started',
    );
  }

  stop(options: { graceMs?: number } = {}): Promise<void> {
    if (this.stopped === null) this.stopped = this.shutdown(options.graceMs ?? 10_000);
    return this.stopped;
  }

  private async shutdown(graceMs: number): Promise<void> {
    if (this.state === 'new') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopping';
    const { boss, logger } = this.options;
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    // Drained means pg-boss has settled every job its workers held, not only that our handlers returned: the
    // queue's stop that follows fails whatever it still finds active, which would turn a finished step's job
    // into a counted retry.
    const drained = Promise.all(this.queues.map((queue) => boss.offWork(queue, { wait: true }))).then(
      () => 'done' as const,
    );
    const result = await Promise.race([drained, graceOver]);
    clearTimeout(timer);
    if (result === 'timeout') {
      await Promise.all([...this.running.values()].map((running) => this.release(running.job)));
    }
    this.state = 'stopped';
    logger.info({ workerId: this.workerId, released: this.released.size }, 'worker stopped');
  }

  /**
   * Hands a job back unfinished: due now, and the interrupted attempt given back by raising the job's own
   * retry limit by one (pg-boss counts an attempt at every claim). Only while this claim still holds it
   * (active at the attempt it was fetched at); pg-boss then refuses this run's own settlement.
   */
  private async release(job: JobWithMetadata<QueuedJobData>): Promise<void> {
    try {
      const { rows } = await this.options.boss.getDb().executeSql(
        `UPDATE ${JOB_TABLE} SET state = 'retry', start_after = now(), heartbeat_on = NULL,
           retry_limit = retry_limit + 1, output = $4::jsonb
         WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3
         RETURNING id`,
        [
          job.name,
          job.id,
          job.retryCount,
          JSON.stringify({
            error: `${WORKER_SHUTDOWN}: released by a stopping worker before the step finished`,
          }),
        ],
      );
      if (rows.length === 1) {
        this.released.add(job.id);
        this.options.logger.warn(
          { workerId: this.workerId, jobId: job.id, type: job.name },
          'job released at shutdown',
        );
      }
    } catch (error) {
      this.options.logger.warn(
        { jobId: job.id, error: describeJobError(error) },
        'releasing a job failed; its heartbeat will lapse and it is retried',
      );
    }
  }

  private async runBatch(
    jobs: Array<JobWithMetadata<QueuedJobData>>,
    run: (job: JobWithMetadata<QueuedJobData>) => Promise<BossJobResult>,
  ): Promise<BossJobResult[]> {
    return Promise.all(
      jobs.map(async (job) => {
        // Registered while it waits for a slot too, so a stopping worker hands it back with the rest.
        const done = (async () => {
          await this.slots.take();
          try {
            if (this.state !== 'running') return await this.handBack(job);
            return await run(job);
          } finally {
            this.slots.give();
          }
        })();
        this.running.set(job.id, { job, done });
        try {
          return await done;
        } finally {
          this.running.delete(job.id);
          this.lookForMore(job.name);
        }
      }),
    );
  }

  /**
   * pg-boss waits a polling interval after every batch before fetching again; a backlog of due jobs would
   * drain at one job per interval per slot. Waking the queue's busy pollers (one of them holds the job that
   * just ended) makes them fetch again as soon as their batch is settled, as a worker with a free slot should;
   * idle ones are left to notifications and their polls.
   */
  private lookForMore(queue: string): void {
    if (this.state !== 'running') return;
    for (const poller of this.options.boss.getWipData()) {
      if (poller.name === queue && poller.count > 0) this.options.boss.notifyWorker(poller.id);
    }
  }

  /** A job fetched as the worker began stopping: handed back at once, its attempt not counted. */
  private async handBack(job: JobWithMetadata<QueuedJobData>): Promise<BossJobResult> {
    await this.release(job);
    return { id: job.id, status: 'failed', output: { error: WORKER_SHUTDOWN } };
  }

  private async runStep(raw: JobWithMetadata<QueuedJobData>): Promise<BossJobResult> {
    const started = Date.now();
    let job: WorkerJob | null = null;
    const settle = (settlement: JobSettlement): void => {
      const durationMs = Date.now() - started;
      const settledJob = job ?? {
        id: raw.id,
        type: raw.name,
        authorizationId: String(raw.data?.authorizationId ?? ''),
        scope: { organizationId: '', environment: 'sandbox' },
        payload: {},
        attempt: raw.retryCount + 1,
        maxAttempts: raw.retryLimit + 1,
      };
      this.log(settledJob, settlement, durationMs);
      this.options.onJobSettled?.({ job: settledJob, settlement, durationMs });
    };
    try {
      job = toWorkerJob(raw);
      const handler = this.options.handlers[job.type];
      if (handler === undefined) {
        throw new PermanentJobError('unknown_job_type', `No handler for job type "${job.type}".`);
      }
      const result = await handler(job);
      if (this.released.has(raw.id)) {
        settle({ status: 'released' });
        return { id: raw.id, status: 'completed' };
      }
      settle({ status: 'completed', outcome: result.outcome });
      return { id: raw.id, status: 'completed', output: { outcome: result.outcome } };
    } catch (error) {
      const description = describeJobError(error);
      const permanent = isPermanentJobFailure(error);
      settle({ status: 'failed', error: description, permanent });
      // A permanent failure would only repeat: straight to the given-up queue, with why.
      return {
        id: raw.id,
        status: permanent ? 'deadletter' : 'failed',
        output: { error: description, permanent },
      };
    }
  }

  private async resolveGivenUp(raw: JobWithMetadata<QueuedJobData>): Promise<BossJobResult> {
    const started = Date.now();
    const output = (raw.sourceOutput ?? {}) as { error?: unknown; permanent?: unknown; value?: unknown };
    const error =
      typeof output.error === 'string'
        ? output.error
        : // pg-boss's own failures (a lapsed heartbeat, an expiry) carry a message instead.
          describeJobError(output.value ?? output);
    let job: WorkerJob;
    try {
      job = { ...toWorkerJob({ ...raw, name: raw.data?.type ?? raw.sourceName ?? raw.name }), attempt: 0 };
    } catch (invalid) {
      this.options.logger.error(
        { jobId: raw.id, error: describeJobError(invalid) },
        'given-up job without a case: nothing to resolve',
      );
      return { id: raw.id, status: 'completed' };
    }
    try {
      const consequence = await this.options.giveUp({
        ...job,
        reason: output.permanent === true ? 'permanent_failure' : 'attempts_exhausted',
        error,
      });
      const settlement: JobSettlement = { status: 'gave_up', consequence };
      this.log(job, settlement, Date.now() - started, error);
      this.options.onJobSettled?.({ job, settlement, durationMs: Date.now() - started });
      return { id: raw.id, status: 'completed', output: { consequence } };
    } catch (failure) {
      this.options.logger.warn(
        { jobId: raw.id, type: job.type, error: describeJobError(failure) },
        'resolving a given-up job failed; retried',
      );
      return { id: raw.id, status: 'failed', output: { error: describeJobError(failure) } };
    }
  }

  private log(job: WorkerJob, settlement: JobSettlement, durationMs: number, lastError?: string): void {
    const details = {
      workerId: this.workerId,
      jobId: job.id,
      type: job.type,
      authorizationId: job.authorizationId,
      environment: job.scope.environment,
      attempt: job.attempt,
      durationMs,
      ...(lastError === undefined ? {} : { lastError }),
      ...settlement,
    };
    const { logger } = this.options;
    switch (settlement.status) {
      case 'completed':
        logger.info(details, 'job completed');
        return;
      case 'failed':
        logger.warn(
          details,
          settlement.permanent ? 'job failed permanently' : 'job failed; pg-boss retries it',
        );
        return;
      case 'released':
        logger.warn(details, 'job released at shutdown');
        return;
      case 'gave_up':
        logger.error(details, 'job given up');
    }
  }
}
