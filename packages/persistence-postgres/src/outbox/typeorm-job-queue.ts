import type { Job, JobQueue, TenantScope } from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import { runSql } from '../unit-of-work/sql';
import { tenantParameters } from '../unit-of-work/tenant-bound';

export const DEFAULT_MAX_JOB_ATTEMPTS = 10;

/** Channel on which workers LISTEN; a due job NOTIFYs it so an idle worker wakes at once instead of polling. */
export const JOBS_NOTIFY_CHANNEL = 'prior_auth_jobs';

/** Enqueues jobs of ONE tenant in the manager's transaction: a rolled-back change leaves no job behind. */
export class TypeOrmJobQueue implements JobQueue {
  constructor(
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
    private readonly options: { now?: () => Date; maxAttempts?: number } = {},
  ) {}

  async enqueue(job: Job): Promise<void> {
    const now = this.options.now?.() ?? new Date();
    const runAt = job.runAt ?? now;
    await runSql(
      this.manager,
      `INSERT INTO jobs (organization_id, environment, type, authorization_id, run_at, max_attempts, payload, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        ...tenantParameters(this.scope),
        job.type,
        job.authorizationId,
        runAt,
        this.options.maxAttempts ?? DEFAULT_MAX_JOB_ATTEMPTS,
        JSON.stringify(job.payload ?? {}),
        now,
      ],
    );
    // Sent in the same transaction, so PostgreSQL delivers it only on commit: a rolled-back job wakes no one.
    if (runAt.getTime() <= now.getTime()) {
      await runSql(this.manager, `SELECT pg_notify($1, $2)`, [JOBS_NOTIFY_CHANNEL, job.type]);
    }
  }
}
