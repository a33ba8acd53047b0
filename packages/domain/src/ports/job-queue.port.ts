/** Work the worker picks up; see `WORKER_JOB_TYPES` in the use cases for the types in use. */
export interface Job {
  type: string;
  authorizationId: string;
  /** Not before this time; absent means as soon as possible. */
  runAt?: Date;
  payload?: Record<string, unknown>;
}

/**
 * Jobs are written in the same transaction as the aggregate change that calls for them, so a committed change
 * always has its follow-up work and a rolled-back one never does. Retries, expiry and what giving a job up
 * means are the job type's (docs/decisions/0016-job-queue-on-pg-boss.md), not the caller's.
 */
export interface JobQueue {
  enqueue(job: Job): Promise<void>;
}
