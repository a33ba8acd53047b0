import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The worker's jobs moved to pg-boss (decision 0016), which keeps its own tables in the `pgboss` schema and
 * creates them at start-up. The hand-written queue table and its indexes go. Unfinished rows are not carried
 * over: no production payer is connected yet, so only sandbox cases can be waiting, and those are re-driven by
 * confirming them again.
 */
export class DropHandWrittenJobQueue1763745000000 implements MigrationInterface {
  name = 'DropHandWrittenJobQueue1763745000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE jobs');
  }

  /** The table as 1763741000000 and 1763744000000 left it (empty). */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE jobs (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        type text NOT NULL,
        authorization_id text NOT NULL,
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        run_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        max_attempts integer NOT NULL CHECK (max_attempts >= 1),
        locked_by text,
        locked_until timestamptz,
        last_error text,
        payload jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        done_at timestamptz,
        failed_at timestamptz
      )`);
    await q.query(
      `CREATE INDEX jobs_ready_idx ON jobs (run_at, id) WHERE done_at IS NULL AND failed_at IS NULL`,
    );
    await q.query(
      `CREATE INDEX jobs_authorization_idx ON jobs (organization_id, environment, authorization_id, id)`,
    );
    await q.query('CREATE INDEX jobs_done_at_idx ON jobs (done_at) WHERE done_at IS NOT NULL');
    await q.query('CREATE INDEX jobs_failed_at_idx ON jobs (failed_at) WHERE failed_at IS NOT NULL');
  }
}
