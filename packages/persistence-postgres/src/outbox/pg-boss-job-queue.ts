import type { Environment, Job, JobQueue, TenantScope } from '@prior-auth/domain';
import type { Db, PgBoss } from 'pg-boss';
import type { EntityManager } from 'typeorm';
import { JOB_QUEUE_SCHEMA } from './job-queues';

/** What a queued job carries: its type again (dead-lettered jobs keep it), its case and tenant, its payload. */
export interface QueuedJobData {
  type: string;
  authorizationId: string;
  organizationId: string;
  environment: Environment;
  payload: Record<string, unknown>;
}

/** pg-boss's statements on the manager's connection, so they join its transaction. */
export function transactionDatabase(manager: EntityManager): Db {
  return {
    executeSql: async (text: string, values?: unknown[]) => {
      const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
      try {
        const result = await runner.query(text, values, true);
        return { rows: (result.records ?? []) as unknown[] };
      } finally {
        if (!manager.queryRunner) await runner.release();
      }
    },
  };
}

/**
 * The domain's JobQueue on pg-boss, for ONE tenant: `send` runs on the manager's connection, inside the
 * transaction of the change that calls for the job (decision 0016), so a rolled-back change leaves no job and
 * a committed one always has it. Retry, expiry and heartbeat come from the job type's queue (JOB_QUEUE_SETTINGS).
 */
export class PgBossJobQueue implements JobQueue {
  constructor(
    private readonly boss: PgBoss,
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
  ) {}

  async enqueue(job: Job): Promise<void> {
    const data: QueuedJobData = {
      type: job.type,
      authorizationId: job.authorizationId,
      organizationId: this.scope.organizationId,
      environment: this.scope.environment,
      payload: job.payload ?? {},
    };
    // A job due now is left to the database's default (the transaction's start), so pg-boss NOTIFYs workers
    // at commit; a time taken inside the transaction would count as future and wait for their next poll.
    const deferred = job.runAt !== undefined && job.runAt.getTime() > Date.now();
    const id = await this.boss.send(job.type, data, {
      db: transactionDatabase(this.manager),
      ...(deferred ? { startAfter: job.runAt } : {}),
    });
    // Standard queues never deduplicate: no id means the job was not stored, and the change must not commit.
    if (id === null) throw new Error(`job ${job.type} for ${job.authorizationId} was not enqueued`);
  }
}

/** The table pg-boss keeps jobs of standard queues in (tests and operators read it). */
export const JOB_TABLE = `${JOB_QUEUE_SCHEMA}.job`;
