import { randomBytes } from 'node:crypto';
import {
  type Clock,
  type Environment,
  type GrantIssuer,
  type PayerPortal,
  type PipelineSettings,
  type RuntimeSessions,
} from '@prior-auth/domain';
import {
  KeysetCursors,
  PostgresIdempotencyStore,
  PostgresJobStore,
  TypeOrmUnitOfWork,
} from '@prior-auth/persistence-postgres';
import { RandomIdGenerator, TokenSigner } from '@prior-auth/platform';
import { type DataSource } from 'typeorm';
import { createGiveUpHandlers, createJobHandlers } from './job-handlers';
import { PgJobWakeups } from './job-notifications';
import { type RetryPolicy } from './retry-policy';
import { type PeriodicTask, type SettledJob, Worker, type WorkerLogger } from './worker';

/**
 * Every worker purges this often: expired idempotency records (kept ≥ 24 h, decision 4) and finished jobs
 * past their retention (COMPLETED_JOB_RETENTION_MS, GIVEN_UP_JOB_RETENTION_MS). Both purges skip rows another
 * worker is purging, so all workers may run them at once.
 */
export const PURGE_INTERVAL_MS = 10 * 60_000;

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

export interface WorkerCompositionOptions {
  dataSource: DataSource;
  /** The database to LISTEN on for wake-ups; null polls only. */
  databaseUrl: string | null;
  logger: WorkerLogger;
  concurrency: number;
  leaseMs: number;
  pollIntervalMs: number;
  /** Payer portal per environment; an environment without one fails its cases with payer_portal_unavailable. */
  portals: Partial<Record<Environment, PayerPortal>>;
  pipelineSettings?: Partial<Record<Environment, Partial<PipelineSettings>>>;
  grantIssuer: GrantIssuer;
  runtimeSessions: RuntimeSessions;
  /** Only signs list cursors, which the worker never hands out; a random one is fine when absent. */
  signingSecret?: string;
  /** How often the purges run (PURGE_INTERVAL_MS); 0 disables them (tests). */
  purgeIntervalMs?: number;
  retry?: Partial<RetryPolicy>;
  workerId?: string;
  clock?: Clock;
  onJobSettled?: (settled: SettledJob) => void;
}

/** The worker's composition root: PostgreSQL adapters, the domain's pipeline use cases, the worker loop. */
export function createWorker(options: WorkerCompositionOptions): Worker {
  const clock: Clock = options.clock ?? { now: () => new Date() };
  const signer = new TokenSigner(options.signingSecret ?? randomBytes(32).toString('hex'));
  const unitOfWork = new TypeOrmUnitOfWork(options.dataSource, {
    cursors: new KeysetCursors(signer),
    clock,
    defaultActor: 'worker',
  });
  const handlers = createJobHandlers({
    unitOfWork,
    clock,
    ids: new RandomIdGenerator(),
    portals: options.portals,
    pipelineSettings: options.pipelineSettings,
    grantIssuer: options.grantIssuer,
    runtimeSessions: options.runtimeSessions,
  });
  const giveUpHandlers = createGiveUpHandlers({
    unitOfWork,
    clock,
    ids: new RandomIdGenerator(),
    pipelineSettings: options.pipelineSettings,
  });
  const jobStore = new PostgresJobStore(options.dataSource);
  const periodicTasks: PeriodicTask[] = [];
  const purgeEvery = options.purgeIntervalMs ?? PURGE_INTERVAL_MS;
  if (purgeEvery > 0) {
    const idempotency = new PostgresIdempotencyStore(options.dataSource);
    periodicTasks.push(
      {
        name: 'purge_expired_idempotency_records',
        intervalMs: purgeEvery,
        run: (now) => idempotency.purgeExpired(now),
      },
      { name: 'purge_finished_jobs', intervalMs: purgeEvery, run: (now) => jobStore.purgeFinished(now) },
    );
  }
  return new Worker({
    jobStore,
    handlers,
    giveUpHandlers,
    logger: options.logger,
    concurrency: options.concurrency,
    leaseMs: options.leaseMs,
    pollIntervalMs: options.pollIntervalMs,
    ...(options.workerId === undefined ? {} : { workerId: options.workerId }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.onJobSettled === undefined ? {} : { onJobSettled: options.onJobSettled }),
    wakeups:
      options.databaseUrl === null
        ? undefined
        : new PgJobWakeups({
            connectionString: options.databaseUrl,
            dataSource: options.dataSource,
            logger: options.logger,
          }),
    periodicTasks,
    clock,
  });
}
