import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workers purge finished jobs past their retention (completed 7 days, given up 30 days). Without these partial
 * indexes every purge batch would scan the whole job table; with them it reads only the oldest finished rows.
 */
export class FinishedJobsRetention1763744000000 implements MigrationInterface {
  name = 'FinishedJobsRetention1763744000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX jobs_done_at_idx ON jobs (done_at) WHERE done_at IS NOT NULL');
    await q.query('CREATE INDEX jobs_failed_at_idx ON jobs (failed_at) WHERE failed_at IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX jobs_failed_at_idx');
    await q.query('DROP INDEX jobs_done_at_idx');
  }
}
