import type { Environment, TenantScope } from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import { TransactionContext, type TransactionMetadata } from '../unit-of-work/transaction-context';
import { runSql } from '../unit-of-work/sql';
import type { JobRow } from './job.entity';

/** A job leased to one worker until `lockedUntil`. */
export interface ClaimedJob {
  id: string;
  type: string;
  authorizationId: string;
  scope: TenantScope;
  payload: Record<string, unknown>;
  /** Including this one. */
  attempts: number;
  maxAttempts: number;
  runAt: Date;
  lockedUntil: Date;
  /**
   * Its lease ran out on its final attempt (the worker running it died): leased again only to be given up,
   * never run, and no attempt is counted for it.
   */
  stranded: boolean;
}

export interface ClaimJobsRequest {
  workerId: string;
  now: Date;
  /** How long the lease lasts; a worker that dies is replaced once it ran out. */
  leaseMs: number;
  limit: number;
  /** Only these job types; all when absent. */
  types?: readonly string[];
}

const toClaimedJob = (row: JobRow & { stranded: boolean }): ClaimedJob => ({
  id: String(row.id),
  type: row.type,
  authorizationId: row.authorization_id,
  scope: { organizationId: row.organization_id, environment: row.environment as Environment },
  payload: row.payload,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  runAt: row.run_at,
  lockedUntil: row.locked_until ?? row.run_at,
  stranded: row.stranded,
});

/** Last errors are for operators; long stacks are cut so one bad job cannot bloat the table. */
const MAX_ERROR_LENGTH = 2_000;

const DAY_MS = 24 * 60 * 60_000;

/** Completed jobs are kept this long (a pending sandbox case adds one row per poll), then purged. */
export const COMPLETED_JOB_RETENTION_MS = 7 * DAY_MS;

/** Given-up jobs are kept longer: their last error is what an operator investigates. */
export const GIVEN_UP_JOB_RETENTION_MS = 30 * DAY_MS;

export interface PurgeFinishedJobsOptions {
  completedRetentionMs?: number;
  givenUpRetentionMs?: number;
  /** Rows deleted per statement, so a large backlog never holds many locks or one long transaction. */
  batchSize?: number;
}

/**
 * The worker's side of the `jobs` table, across tenants (each job carries its scope). Claims use
 * `FOR UPDATE SKIP LOCKED` on the partial ready-jobs index, so any number of workers poll without blocking
 * each other or taking the same job. Every call that changes a leased job names the lease holder and does
 * nothing for anyone else, so a worker whose lease was taken over cannot complete, retry, give up, extend or
 * release the job. Finishing calls join the ambient transaction when there is one (`TransactionContext`),
 * so a job can be marked done in the transaction of its effects.
 */
export class PostgresJobStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Leases due jobs whose lease is free. Each counts an attempt, except stranded ones: jobs whose worker died
   * on their final attempt, which would otherwise stay unfinished forever. Those come back with `stranded`
   * set, for the caller to give up (and to resolve their case) under the new lease; if that caller dies too,
   * the next claim after the lease sweeps them again.
   */
  async claim(request: ClaimJobsRequest): Promise<ClaimedJob[]> {
    const lockedUntil = new Date(request.now.getTime() + request.leaseMs);
    const typeFilter = request.types === undefined ? '' : 'AND type = ANY($5::text[])';
    const parameters: unknown[] = [request.now, request.limit, request.workerId, lockedUntil];
    if (request.types !== undefined) parameters.push([...request.types]);
    const { rows } = await this.run(
      (manager) =>
        runSql<JobRow & { stranded: boolean }>(
          manager,
          `WITH ready AS (
           SELECT id, attempts >= max_attempts AS stranded FROM jobs
           WHERE done_at IS NULL AND failed_at IS NULL AND run_at <= $1
             AND (locked_until IS NULL OR locked_until <= $1) ${typeFilter}
           ORDER BY run_at, id
           LIMIT $2
           FOR UPDATE SKIP LOCKED)
         UPDATE jobs SET locked_by = $3, locked_until = $4,
           attempts = CASE WHEN ready.stranded THEN jobs.attempts ELSE jobs.attempts + 1 END
         FROM ready WHERE jobs.id = ready.id
         RETURNING jobs.*, ready.stranded`,
          parameters,
        ),
      false,
    );
    return rows
      .map(toClaimedJob)
      .sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || Number(a.id) - Number(b.id));
  }

  /**
   * Extends a lease its holder still has, to `now + leaseMs`. False when the lease is lost: it ran out (even
   * if no one took the job yet, the holder must assume someone did), or the job moved on.
   */
  async extendLease(
    jobId: string,
    workerId: string,
    lease: { now: Date; leaseMs: number },
  ): Promise<boolean> {
    const { rowCount } = await this.run(
      (manager) =>
        runSql(
          manager,
          `UPDATE jobs SET locked_until = GREATEST(locked_until, $4)
           WHERE id = $1 AND locked_by = $2 AND locked_until > $3 AND done_at IS NULL AND failed_at IS NULL`,
          [jobId, workerId, lease.now, new Date(lease.now.getTime() + lease.leaseMs)],
        ),
      false,
    );
    return rowCount === 1;
  }

  /**
   * Hands a leased job back unfinished (a stopping worker): due at `now`, lease cleared, and the attempt its
   * claim counted is taken back, since the interruption says nothing about the job. A job on its final
   * attempt therefore runs again instead of waiting for its lease to become stranded. False when the lease
   * was lost.
   */
  async release(jobId: string, workerId: string, now: Date, note?: string): Promise<boolean> {
    const { rowCount } = await this.run(
      (manager) =>
        runSql(
          manager,
          `UPDATE jobs SET locked_by = NULL, locked_until = NULL, run_at = $3,
             attempts = GREATEST(attempts - 1, 0), last_error = COALESCE($4, last_error)
           WHERE id = $1 AND locked_by = $2 AND done_at IS NULL AND failed_at IS NULL`,
          [jobId, workerId, now, note?.slice(0, MAX_ERROR_LENGTH) ?? null],
        ),
      false,
    );
    return rowCount === 1;
  }

  /** False when the lease was lost (it ran out and another worker took the job). */
  async complete(jobId: string, workerId: string, now: Date): Promise<boolean> {
    const { rowCount } = await this.run((manager) =>
      runSql(
        manager,
        `UPDATE jobs SET done_at = $3, locked_by = NULL, locked_until = NULL
         WHERE id = $1 AND locked_by = $2 AND done_at IS NULL AND failed_at IS NULL`,
        [jobId, workerId, now],
      ),
    );
    return rowCount === 1;
  }

  /**
   * A failed attempt: retried at `retryAt` while attempts remain, otherwise given up (`failed_at`). Returns
   * what happened, or 'lease_lost'.
   */
  async retryOrGiveUp(
    jobId: string,
    workerId: string,
    failure: { error: string; retryAt: Date; now: Date },
  ): Promise<'retry_scheduled' | 'gave_up' | 'lease_lost'> {
    const { rows } = await this.run((manager) =>
      runSql<{ failed: boolean }>(
        manager,
        `UPDATE jobs SET
           locked_by = NULL, locked_until = NULL, last_error = $3,
           run_at = CASE WHEN attempts < max_attempts THEN $4 ELSE run_at END,
           failed_at = CASE WHEN attempts < max_attempts THEN NULL ELSE $5::timestamptz END
         WHERE id = $1 AND locked_by = $2 AND done_at IS NULL AND failed_at IS NULL
         RETURNING failed_at IS NOT NULL AS failed`,
        [jobId, workerId, failure.error.slice(0, MAX_ERROR_LENGTH), failure.retryAt, failure.now],
      ),
    );
    const row = rows[0];
    if (row === undefined) return 'lease_lost';
    return row.failed ? 'gave_up' : 'retry_scheduled';
  }

  /** Gives up at once (a permanent error): the job is kept for operators with its last error. */
  async giveUp(jobId: string, workerId: string, failure: { error: string; now: Date }): Promise<boolean> {
    const { rowCount } = await this.run((manager) =>
      runSql(
        manager,
        `UPDATE jobs SET failed_at = $4, last_error = $3, locked_by = NULL, locked_until = NULL
         WHERE id = $1 AND locked_by = $2 AND done_at IS NULL AND failed_at IS NULL`,
        [jobId, workerId, failure.error.slice(0, MAX_ERROR_LENGTH), failure.now],
      ),
    );
    return rowCount === 1;
  }

  /**
   * Deletes completed jobs older than `completedRetentionMs` and given-up ones older than
   * `givenUpRetentionMs`, in batches. Batches skip rows another purger has locked, so any number of workers
   * purge at once without waiting on or failing over each other. Returns how many rows this call deleted.
   */
  async purgeFinished(now: Date, options: PurgeFinishedJobsOptions = {}): Promise<number> {
    const completedBefore = new Date(
      now.getTime() - (options.completedRetentionMs ?? COMPLETED_JOB_RETENTION_MS),
    );
    const givenUpBefore = new Date(now.getTime() - (options.givenUpRetentionMs ?? GIVEN_UP_JOB_RETENTION_MS));
    const batchSize = options.batchSize ?? 1_000;
    let total = 0;
    for (;;) {
      const { rowCount } = await this.run(
        (manager) =>
          runSql(
            manager,
            `DELETE FROM jobs WHERE id = ANY (ARRAY(
               SELECT id FROM jobs WHERE done_at < $1 OR failed_at < $2 LIMIT $3 FOR UPDATE SKIP LOCKED))`,
            [completedBefore, givenUpBefore, batchSize],
          ),
        false,
      );
      total += rowCount;
      if (rowCount < batchSize) return total;
    }
  }

  /**
   * Runs `work` in one transaction that this store's calls and units of work on the same DataSource join
   * (`TransactionContext`): giving up a job and resolving its case commit together or not at all. It runs at
   * REPEATABLE READ, so everything `work` reads is one snapshot: a write based on it that a concurrent commit
   * has made stale fails (and rolls all of it back) instead of overwriting that commit.
   */
  async withinTransaction<T>(work: () => Promise<T>, metadata?: TransactionMetadata): Promise<T> {
    if (TransactionContext.current(this.dataSource) !== undefined) return work();
    return new TransactionContext(this.dataSource).run(async (manager) => {
      await runSql(manager, 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      return work();
    }, metadata);
  }

  private async run<T>(work: (manager: EntityManager) => Promise<T>, joinAmbient = true): Promise<T> {
    const ambient = joinAmbient ? TransactionContext.current(this.dataSource) : undefined;
    try {
      return await work(ambient?.manager ?? this.dataSource.manager);
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}
