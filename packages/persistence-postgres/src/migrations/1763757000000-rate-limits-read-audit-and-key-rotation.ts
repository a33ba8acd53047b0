import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0035. `api_rate_limits` holds the API's shared rate-limit counters (one row per key or client
 * address and window; the columns are the ones the rate limiter reads and writes): unlogged, since a counter
 * lost in a crash only resets a window. `audit_log` is read by organization and time (`pnpm admin audit`).
 * API keys gain a label, the time they were last used and, once rotated, when they stop working.
 */
export class RateLimitsReadAuditAndKeyRotation1763757000000 implements MigrationInterface {
  name = 'RateLimitsReadAuditAndKeyRotation1763757000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNLOGGED TABLE api_rate_limits (
        key varchar(255) PRIMARY KEY,
        points integer NOT NULL DEFAULT 0,
        expire bigint
      )`);
    await q.query(`CREATE INDEX audit_log_organization_time_idx
      ON audit_log (organization_id, occurred_at, id)`);
    await q.query(`
      ALTER TABLE api_keys
        ADD COLUMN label text,
        ADD COLUMN last_used_at timestamptz,
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN replaced_by text REFERENCES api_keys(id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys
        DROP COLUMN replaced_by,
        DROP COLUMN expires_at,
        DROP COLUMN last_used_at,
        DROP COLUMN label`);
    await q.query('DROP INDEX audit_log_organization_time_idx');
    await q.query('DROP TABLE api_rate_limits');
  }
}
