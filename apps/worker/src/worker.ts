import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type Clock } from '@prior-auth/domain';
import { type ClaimedJob, type PostgresJobStore } from '@prior-auth/persistence-postgres';
import { type GiveUp, type GiveUpHandlers, type JobHandlers } from './job-handlers';
import {
  DEFAULT_RETRY_POLICY,
  describeJobError,
  isPermanentJobFailure,
  PermanentJobError,
  retryDelayMs,
  type RetryPolicy,
} from './retry-policy';

/** The part of PostgresJobStore the worker uses. */
export type WorkerJobStore = Pick<
  PostgresJobStore,
  'claim' | 'complete' | 'retryOrGiveUp' | 'giveUp' | 'extendLease' | 'release' | 'withinTransaction'
>;

/** A running job's lease is renewed this many times per lease, so one late renewal never loses it. */
export const LEASE_RENEWALS_PER_LEASE = 3;

/** `last_error` of a job given up because the worker running its final attempt vanished. */
export const LEASE_EXPIRED_ON_FINAL_ATTEMPT = 'lease_expired_on_final_attempt';

/** Tells idle workers that jobs may be due (PostgreSQL LISTEN/NOTIFY in production). */
export interface JobWakeups {
  /** Calls `onWake` whenever work may have arrived; keeps trying on its own when the channel breaks. */
  start(onWake: () => void): Promise<void>;
  /** Wakes the other workers. */
  notify(): Promise<void>;
  stop(): Promise<void>;
}

/** Structured logging (pino's shape); never given case data. */
export interface WorkerLogger {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export type JobSettlement =
  | { status: 'completed'; outcome: string; leaseLost: boolean }
  | { status: 'retry_scheduled'; error: string; retryAt: Date }
  | { status: 'gave_up'; error: string; consequence: string }
  | { status: 'released' }
  | { status: 'lease_lost'; error: string }
  | { status: 'unrecorded'; error: string };

export interface SettledJob {
  job: ClaimedJob;
  settlement: JobSettlement;
  durationMs: number;
}

export interface PeriodicTask {
  name: string;
  intervalMs: number;
  run(now: Date): Promise<unknown>;
}

export interface WorkerOptions {
  jobStore: WorkerJobStore;
  handlers: JobHandlers;
  /** What giving up a job of each type does to its case; none for types without one. */
  giveUpHandlers?: GiveUpHandlers;
  logger: WorkerLogger;
  /** Jobs run at once (WORKER_CONCURRENCY). */
  concurrency: number;
  /**
   * How long a claim is ours without renewal (WORKER_LEASE_MS). A running job's lease is renewed every
   * `leaseMs / LEASE_RENEWALS_PER_LEASE`; a worker that dies stops renewing and loses its jobs after this.
   */
  leaseMs: number;
  /** How often an idle worker looks for due jobs even without a wake-up (WORKER_POLL_INTERVAL_MS). */
  pollIntervalMs: number;
  workerId?: string;
  retry?: Partial<RetryPolicy>;
  wakeups?: JobWakeups;
  /** Maintenance run every `intervalMs` from start (for example purging idempotency records). */
  periodicTasks?: PeriodicTask[];
  clock?: Clock;
  /** Called after each job is settled in the store (tests and benchmarks observe progress with it). */
  onJobSettled?: (settled: SettledJob) => void;
}

interface Running {
  job: ClaimedJob;
  done: Promise<void>;
  /** The step ended: its lease is no longer renewed, whatever its settlement does. */
  ended: boolean;
  /** Stops renewing the lease (idempotent). */
  stopRenewal: () => void;
}

/**
 * The worker loop. Claims due jobs from PostgreSQL with a lease (`FOR UPDATE SKIP LOCKED`, so several
 * workers never hold one job at once), renews the lease while the job runs, runs each with the handler of
 * its type, and settles it: completed, retried with exponential backoff, or given up (permanent failures,
 * attempts exhausted, and jobs whose worker died on their final attempt). Giving up runs the type's give-up
 * consequence in the same transaction, so no case is left waiting on a job that will never run. It claims
 * only while it has free slots, wakes on a notification, when a job finishes, or every `pollIntervalMs`.
 *
 * `stop` stops claiming, lets running jobs finish within the grace period and releases those that do not
 * (due at once for another worker, the interrupted attempt not counted); the domain's optimistic guards make
 * a step that still ends afterwards harmless.
 */
export class Worker {
  readonly workerId: string;
  private readonly clock: Clock;
  private readonly retry: RetryPolicy;
  private readonly types: string[];
  private readonly running = new Map<string, Running>();
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  private loopDone: Promise<void> = Promise.resolve();
  private wakePending = false;
  private wakeWaiter: (() => void) | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly tasksInFlight = new Set<Promise<unknown>>();
  private stopped: Promise<void> | null = null;

  constructor(private readonly options: WorkerOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError('concurrency must be a positive integer');
    }
    this.workerId =
      options.workerId ?? `worker-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.clock = options.clock ?? { now: () => new Date() };
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.types = Object.keys(options.handlers);
  }

  /** Jobs currently running. */
  get activeJobs(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('a worker can be started once');
    this.state = 'running';
    await this.options.wakeups?.start(() => this.wake());
    for (const task of this.options.periodicTasks ?? []) this.schedule(task, 0);
    this.loopDone = this.loop();
    this.options.logger.info(
      { workerId: this.workerId, concurrency: this.options.concurrency, types: this.types },
      'worker started',
    );
  }

  /** Wakes the loop: work may be due. */
  wake(): void {
    this.wakePending = true;
    const waiter = this.wakeWaiter;
    this.wakeWaiter = null;
    waiter?.();
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
    for (const timer of this.timers) clearTimeout(timer);
    this.wake();
    await this.loopDone;

    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const settled = Promise.all([...this.running.values()].map((r) => r.done)).then(() => 'done' as const);
    const result = await Promise.race([settled, graceOver]);
    clearTimeout(timer);
    if (result === 'timeout') {
      const unfinished = [...this.running.values()];
      // Past the grace period nothing keeps these jobs ours, even if releasing them fails below.
      for (const running of unfinished) running.stopRenewal();
      await Promise.all(unfinished.map((running) => this.release(running.job)));
    }
    await Promise.allSettled([...this.tasksInFlight]);
    await this.options.wakeups?.stop();
    this.state = 'stopped';
    this.options.logger.info(
      { workerId: this.workerId, releasedOrUnfinished: this.running.size },
      'worker stopped',
    );
  }

  private async loop(): Promise<void> {
    let claimFailures = 0;
    while (this.state === 'running') {
      const free = this.options.concurrency - this.running.size;
      if (free > 0) {
        this.wakePending = false;
        let jobs: ClaimedJob[];
        try {
          jobs = await this.options.jobStore.claim({
            workerId: this.workerId,
            now: this.clock.now(),
            leaseMs: this.options.leaseMs,
            limit: free,
            types: this.types,
          });
          claimFailures = 0;
        } catch (error) {
          claimFailures += 1;
          const delay = Math.min(this.options.pollIntervalMs * 2 ** claimFailures, 30_000);
          this.options.logger.warn(
            { workerId: this.workerId, error: describeJobError(error), retryInMs: delay },
            'claiming jobs failed',
          );
          await this.waitForWake(delay);
          continue;
        }
        for (const job of jobs) {
          const own = this.running.get(job.id);
          if (own !== undefined) {
            // Our own step outlived its lease (renewals failed) and we claimed it again: the running step
            // settles it, and the claim made the lease ours again. Another worker could have claimed it too.
            this.options.logger.warn(
              { workerId: this.workerId, jobId: job.id, type: job.type, leaseMs: this.options.leaseMs },
              'job ran longer than its lease and was claimed again',
            );
            if (!own.ended) {
              own.stopRenewal();
              own.stopRenewal = this.renewLease(job);
            }
            continue;
          }
          this.launch(job);
        }
        if (jobs.length === free) continue; // possibly more due; the loop waits once the slots are full
      }
      await this.waitForWake(this.options.pollIntervalMs);
    }
  }

  private waitForWake(timeoutMs: number): Promise<void> {
    if (this.wakePending || this.state !== 'running') {
      this.wakePending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wakeWaiter = null;
        resolve();
      }, timeoutMs);
      this.wakeWaiter = () => {
        clearTimeout(timer);
        this.wakePending = false;
        resolve();
      };
    });
  }

  private launch(job: ClaimedJob): void {
    const running: Running = {
      job,
      done: Promise.resolve(),
      ended: false,
      stopRenewal: this.renewLease(job),
    };
    const stepEnded = () => {
      running.ended = true;
      running.stopRenewal();
    };
    running.done = this.execute(job, stepEnded).finally(() => {
      stepEnded();
      this.running.delete(job.id);
      this.wake();
    });
    this.running.set(job.id, running);
  }

  /**
   * Extends the job's lease every `leaseMs / LEASE_RENEWALS_PER_LEASE` until stopped, so a step longer than
   * the lease is not claimed by another worker. A lost lease (it ran out before a renewal got through) is
   * logged and renewal ends: whoever holds the job now settles it, and this run's settlement is refused by
   * the store. Returns the stop function.
   */
  private renewLease(job: ClaimedJob): () => void {
    const { jobStore, leaseMs, logger } = this.options;
    const every = Math.max(1, Math.floor(leaseMs / LEASE_RENEWALS_PER_LEASE));
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const details = () => ({ workerId: this.workerId, jobId: job.id, type: job.type, leaseMs });
    const renew = async () => {
      let held: boolean;
      try {
        held = await jobStore.extendLease(job.id, this.workerId, { now: this.clock.now(), leaseMs });
      } catch (error) {
        if (stopped) return;
        // Still ours until it runs out; the next renewal may get through.
        logger.warn({ ...details(), error: describeJobError(error) }, 'renewing a job lease failed');
        schedule();
        return;
      }
      if (stopped) return;
      if (held) {
        schedule();
        return;
      }
      stopped = true;
      logger.warn(
        details(),
        "job lease lost while running; if another worker took the job, this run's result is not recorded",
      );
    };
    const schedule = () => {
      timer = setTimeout(() => void renew(), every);
    };
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  private async execute(job: ClaimedJob, stepEnded: () => void): Promise<void> {
    const started = Date.now();
    const settle = (settlement: JobSettlement) => {
      const durationMs = Date.now() - started;
      this.log(job, settlement, durationMs);
      this.options.onJobSettled?.({ job, settlement, durationMs });
    };
    if (job.stranded) {
      stepEnded();
      settle(await this.giveUpStranded(job));
      return;
    }
    let result;
    try {
      const handler = this.options.handlers[job.type];
      if (handler === undefined) {
        throw new PermanentJobError('unknown_job_type', `No handler for job type "${job.type}".`);
      }
      result = await handler(job);
    } catch (error) {
      stepEnded();
      settle(await this.fail(job, error));
      return;
    }
    stepEnded();
    try {
      const completed = await this.options.jobStore.complete(job.id, this.workerId, this.clock.now());
      settle({ status: 'completed', outcome: result.outcome, leaseLost: !completed });
    } catch (error) {
      // The step's effects are committed; the lease runs out and a retry finds nothing left to do.
      settle({ status: 'unrecorded', error: describeJobError(error) });
      return;
    }
    if (result.enqueuedDueWork) {
      await this.options.wakeups?.notify().catch((error: unknown) => {
        this.options.logger.warn({ error: describeJobError(error) }, 'notifying other workers failed');
      });
    }
  }

  private async fail(job: ClaimedJob, error: unknown): Promise<JobSettlement> {
    const description = describeJobError(error);
    const now = this.clock.now();
    const { jobStore } = this.options;
    if (isPermanentJobFailure(error)) {
      return this.settleAtomically(description, async () =>
        (await jobStore.giveUp(job.id, this.workerId, { error: description, now }))
          ? this.gaveUp(job, description, 'permanent_failure', now)
          : { status: 'lease_lost', error: description },
      );
    }
    const retryAt = this.retryAt(job, now);
    return this.settleAtomically(description, async () => {
      const outcome = await jobStore.retryOrGiveUp(job.id, this.workerId, {
        error: description,
        retryAt,
        now,
      });
      if (outcome === 'retry_scheduled') return { status: 'retry_scheduled', error: description, retryAt };
      if (outcome === 'lease_lost') return { status: 'lease_lost', error: description };
      return this.gaveUp(job, description, 'attempts_exhausted', now);
    });
  }

  /** A job whose worker died on its final attempt: given up now, with its consequence. */
  private giveUpStranded(job: ClaimedJob): Promise<JobSettlement> {
    const error = `${LEASE_EXPIRED_ON_FINAL_ATTEMPT}: the worker running its final attempt stopped before finishing it`;
    const now = this.clock.now();
    return this.settleAtomically(error, async () =>
      (await this.options.jobStore.giveUp(job.id, this.workerId, { error, now }))
        ? this.gaveUp(job, error, 'lease_expired_on_final_attempt', now)
        : { status: 'lease_lost', error },
    );
  }

  /**
   * Records a settlement and, when it gives the job up, the consequence for its case in one transaction. If
   * the consequence fails nothing is recorded: the lease runs out and the job is retried, or swept as
   * stranded and given up again, so a case is never left waiting on a job that will not run.
   */
  private async settleAtomically(
    error: string,
    record: () => Promise<JobSettlement>,
  ): Promise<JobSettlement> {
    try {
      return await this.options.jobStore.withinTransaction(record, { actor: 'worker' });
    } catch (storeError) {
      return { status: 'unrecorded', error: `${error} (not recorded: ${describeJobError(storeError)})` };
    }
  }

  private async gaveUp(
    job: ClaimedJob,
    error: string,
    reason: GiveUp['reason'],
    now: Date,
  ): Promise<JobSettlement> {
    const consequence = await this.giveUpConsequence(job, { reason, now, retryAt: this.retryAt(job, now) });
    return { status: 'gave_up', error, consequence };
  }

  /** A consequence that can never run (a PermanentJobError: a malformed payload) is skipped, not retried. */
  private async giveUpConsequence(job: ClaimedJob, giveUp: GiveUp): Promise<string> {
    const handler = this.options.giveUpHandlers?.[job.type];
    if (handler === undefined) return 'none';
    try {
      return await handler(job, giveUp);
    } catch (error) {
      if (error instanceof PermanentJobError) return `none (${error.code})`;
      throw error;
    }
  }

  private retryAt(job: ClaimedJob, now: Date): Date {
    return new Date(now.getTime() + retryDelayMs(this.retry, job.attempts));
  }

  /**
   * Hands a job that did not finish within the shutdown grace back to the queue, due now and without
   * counting the interrupted attempt (so a job on its final attempt is released too, rather than left to
   * become stranded). A stranded job being given up counted no attempt and is left to its lease instead:
   * the next sweep gives it up again.
   */
  private async release(job: ClaimedJob): Promise<void> {
    if (job.stranded) return;
    try {
      const released = await this.options.jobStore.release(
        job.id,
        this.workerId,
        this.clock.now(),
        'worker_shutdown: released by a stopping worker before the step finished',
      );
      if (released) this.log(job, { status: 'released' }, 0);
    } catch (error) {
      this.options.logger.warn(
        { jobId: job.id, error: describeJobError(error) },
        'releasing a job failed; its lease will run out',
      );
    }
  }

  private schedule(task: PeriodicTask, delayMs: number): void {
    const timer = setTimeout(() => {
      const index = this.timers.indexOf(timer);
      if (index >= 0) this.timers.splice(index, 1);
      if (this.state !== 'running') return;
      const run = task
        .run(this.clock.now())
        .then(
          (result) => this.options.logger.debug({ task: task.name, result }, 'periodic task done'),
          (error: unknown) =>
            this.options.logger.warn(
              { task: task.name, error: describeJobError(error) },
              'periodic task failed',
            ),
        )
        .finally(() => {
          this.tasksInFlight.delete(run);
          if (this.state === 'running') this.schedule(task, task.intervalMs);
        });
      this.tasksInFlight.add(run);
    }, delayMs);
    this.timers.push(timer);
  }

  private log(job: ClaimedJob, settlement: JobSettlement, durationMs: number): void {
    const details = {
      workerId: this.workerId,
      jobId: job.id,
      type: job.type,
      authorizationId: job.authorizationId,
      environment: job.scope.environment,
      attempt: job.attempts,
      durationMs,
      ...settlement,
    };
    const { logger } = this.options;
    switch (settlement.status) {
      case 'completed':
        if (settlement.leaseLost) logger.warn(details, 'job finished after its lease was taken over');
        else logger.info(details, 'job completed');
        return;
      case 'retry_scheduled':
        logger.warn(details, 'job failed; retry scheduled');
        return;
      case 'released':
        logger.warn(details, 'job released at shutdown');
        return;
      default:
        logger.error(details, `job ${settlement.status.replace('_', ' ')}`);
    }
  }
}
