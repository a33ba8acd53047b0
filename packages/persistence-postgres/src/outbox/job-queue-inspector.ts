import type { DataSource } from 'typeorm';
import { GIVEN_UP_JOBS_QUEUE, JOB_QUEUE_SCHEMA } from './job-queues';

export const QUEUED_JOB_STATES = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'] as const;
export type QueuedJobState = (typeof QUEUED_JOB_STATES)[number];

/** One job of the queue, as an operator sees it (`pnpm admin jobs list`). */
export interface QueuedJobSummary {
  id: string;
  type: string;
  state: QueuedJobState;
  attempts: number;
  retryLimit: number;
  authorizationId: string | null;
  organizationId: string | null;
  createdAt: Date;
  startAfter: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

/** A case an operator should look at (`pnpm admin cases stuck`), and why. */
export interface StuckCase {
  authorizationId: string;
  organizationId: string;
  environment: string;
  status: string;
  updatedAt: Date;
  reason: 'jobs_exhausted' | 'processing_too_long';
  failedJobIds: string[];
}

interface JobRow {
  id: string;
  name: string;
  state: QueuedJobState;
  retry_count: number;
  retry_limit: number;
  authorization_id: string | null;
  organization_id: string | null;
  created_on: Date;
  start_after: Date;
  started_on: Date | null;
  completed_on: Date | null;
}

const toSummary = (row: JobRow): QueuedJobSummary => ({
  id: row.id,
  type: row.name,
  state: row.state,
  attempts: row.retry_count,
  retryLimit: row.retry_limit,
  authorizationId: row.authorization_id,
  organizationId: row.organization_id,
  createdAt: row.created_on,
  startAfter: row.start_after,
  startedAt: row.started_on,
  completedAt: row.completed_on,
});

const JOB_COLUMNS = `id::text AS id, name, state::text AS state, retry_count, retry_limit,
  data->>'authorizationId' AS authorization_id, data->>'organizationId' AS organization_id,
  created_on, start_after, started_on, completed_on`;

/**
 * Read-only views of the job queue's tables (decision 0016) and the cases they drive, for operators
 * (docs/decisions/0035-rate-limits-cors-read-audit-and-keys.md). Changing a job goes through pg-boss itself.
 */
export class JobQueueInspector {
  constructor(private readonly dataSource: DataSource) {}

  async listJobs(filter: {
    state?: QueuedJobState;
    type?: string;
    authorizationId?: string;
    limit: number;
  }): Promise<QueuedJobSummary[]> {
    const rows: JobRow[] = await this.dataSource.query(
      `SELECT ${JOB_COLUMNS} FROM ${JOB_QUEUE_SCHEMA}.job
       WHERE ($1::text IS NULL OR state::text = $1)
         AND ($2::text IS NULL OR name = $2)
         AND ($3::text IS NULL OR data->>'authorizationId' = $3)
       ORDER BY created_on DESC, id
       LIMIT $4`,
      [filter.state ?? null, filter.type ?? null, filter.authorizationId ?? null, filter.limit],
    );
    return rows.map(toSummary);
  }

  async findJob(id: string): Promise<QueuedJobSummary | null> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
    const rows: JobRow[] = await this.dataSource.query(
      `SELECT ${JOB_COLUMNS} FROM ${JOB_QUEUE_SCHEMA}.job WHERE id = $1::uuid`,
      [id],
    );
    return rows[0] ? toSummary(rows[0]) : null;
  }

  /**
   * Cases not completed or canceled that have a job whose attempts ran out (failed, outside the given-up
   * queue that resolves such jobs), and cases `processing` without a change for longer than `olderThanMs`.
   */
  async stuckCases(olderThanMs: number, limit: number): Promise<StuckCase[]> {
    const rows: Array<{
      id: string;
      organization_id: string;
      environment: string;
      status: string;
      updated_at: Date;
      failed_job_ids: string[] | null;
    }> = await this.dataSource.query(
      `SELECT a.id, a.organization_id, a.environment, a.status, a.updated_at, failed.ids AS failed_job_ids
       FROM authorizations a
       LEFT JOIN LATERAL (
         SELECT array_agg(j.id::text ORDER BY j.created_on) AS ids
         FROM ${JOB_QUEUE_SCHEMA}.job j
         WHERE j.data->>'authorizationId' = a.id AND j.state = 'failed' AND j.name <> $3
       ) failed ON true
       WHERE a.status NOT IN ('completed', 'canceled')
         AND (failed.ids IS NOT NULL
              OR (a.status = 'processing' AND a.updated_at < now() - make_interval(secs => $1::double precision / 1000)))
       ORDER BY a.updated_at
       LIMIT $2`,
      [olderThanMs, limit, GIVEN_UP_JOBS_QUEUE],
    );
    return rows.map((row) => ({
      authorizationId: row.id,
      organizationId: row.organization_id,
      environment: row.environment,
      status: row.status,
      updatedAt: row.updated_at,
      reason: row.failed_job_ids ? 'jobs_exhausted' : 'processing_too_long',
      failedJobIds: row.failed_job_ids ?? [],
    }));
  }
}
