import type { Environment, TenantScope } from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import { TransactionContext } from '../unit-of-work/transaction-context';
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

const toClaimedJob = (row: JobRow): ClaimedJob => ({
  id: String(row.id),
  type: row.type,
  authorizationId: row.authorization_id,
  scope: { organizationId: row.organization_id, environment: row.environment as Environment },
  payload: row.payload,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  runAt: row.run_at,
  lockedUntil: row.locked_until ?? row.run_at,
});

/** Last errors are for operators; long stacks are cut so one bad job cannot bloat the table. */
const MAX_ERROR_LENGTH = 2_000;

/**
 * The worker's side of the `jobs` table, across tenants (each job carries its scope). Claims use
 * `FOR UPDATE SKIP LOCKED` on the partial ready-jobs index, so any number of workers poll without blocking
 * each other or taking the same job. Finishing calls join the ambient transaction when there is one
 * (`TransactionContext`), so a job can be marked done in the transaction of its effects.
 */
export class PostgresJobStore {
  constructor(private readonly dataSource: DataSource) {}

  async claim(request: ClaimJobsRequest): Promise<ClaimedJob[]> {
    const lockedUntil = new Date(request.now.getTime() + request.leaseMs);
    const typeFilter = request.types === undefined ? '' : 'AND type = ANY($5::text[])';
    const parameters: unknown[] = [request.now, request.limit, request.workerId, lockedUntil];
    if (request.types !== undefined) parameters.push([...request.types]);
    const { rows } = await this.run(
      (manager) =>
        runSql<JobRow>(
          manager,
          `WITH ready AS (
           SELECT id FROM jobs
           WHERE done_at IS NULL AND failed_at IS NULL AND run_at <= $1
             AND (locked_until IS NULL OR locked_until <= $1) AND attempts < max_attempts ${typeFilter}
           ORDER BY run_at, id
           LIMIT $2
           FOR UPDATE SKIP LOCKED)
         UPDATE jobs SET locked_by = $3, locked_until = $4, attempts = jobs.attempts + 1
         FROM ready WHERE jobs.id = ready.id
         RETURNING jobs.*`,
          parameters,
        ),
      false,
    );
    return rows
      .map(toClaimedJob)
      .sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || Number(a.id) - Number(b.id));
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

  private async run<T>(work: (manager: EntityManager) => Promise<T>, joinAmbient = true): Promise<T> {
    const ambient = joinAmbient ? TransactionContext.current(this.dataSource) : undefined;
    try {
      return await work(ambient?.manager ?? this.dataSource.manager);
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}
