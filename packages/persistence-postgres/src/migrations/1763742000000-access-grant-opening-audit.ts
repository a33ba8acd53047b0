import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Grant openings record who opened the grant (client address, user agent), and refused openings of tokens
 * that fail verification (tampered, malformed) are kept too: such a token names no trustworthy grant or
 * tenant, so those rows carry neither. Every other outcome still names its grant. See decision 0014.
 */
export class AccessGrantOpeningAudit1763742000000 implements MigrationInterface {
  name = 'AccessGrantOpeningAudit1763742000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE access_grant_openings
        ADD COLUMN client_address text,
        ADD COLUMN user_agent text,
        ALTER COLUMN organization_id DROP NOT NULL,
        ALTER COLUMN environment DROP NOT NULL,
        ALTER COLUMN grant_id DROP NOT NULL,
        DROP CONSTRAINT access_grant_openings_outcome_check,
        ADD CONSTRAINT access_grant_openings_outcome_check
          CHECK (outcome IN ('redirected', 'expired', 'revoked', 'subject_inactive', 'invalid')),
        ADD CONSTRAINT access_grant_openings_names_grant_check
          CHECK (outcome = 'invalid' OR (organization_id IS NOT NULL AND environment IS NOT NULL AND grant_id IS NOT NULL))`);
    // A verified token names its grant by id alone, and revocation goes by subject alone (ids are unique).
    await q.query('CREATE UNIQUE INDEX access_grants_id_idx ON access_grants (id)');
    await q.query(`CREATE INDEX access_grants_live_subject_idx
      ON access_grants (subject_id) WHERE revoked_at IS NULL`);
    await q.query(`CREATE INDEX access_grant_openings_invalid_idx
      ON access_grant_openings (opened_at) WHERE outcome = 'invalid'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX access_grant_openings_invalid_idx');
    await q.query('DROP INDEX access_grants_live_subject_idx');
    await q.query('DROP INDEX access_grants_id_idx');
    await q.query(`DELETE FROM access_grant_openings WHERE outcome = 'invalid'`);
    await q.query(`
      ALTER TABLE access_grant_openings
        DROP CONSTRAINT access_grant_openings_names_grant_check,
        DROP CONSTRAINT access_grant_openings_outcome_check,
        ADD CONSTRAINT access_grant_openings_outcome_check
          CHECK (outcome IN ('redirected', 'expired', 'revoked', 'subject_inactive')),
        ALTER COLUMN organization_id SET NOT NULL,
        ALTER COLUMN environment SET NOT NULL,
        ALTER COLUMN grant_id SET NOT NULL,
        DROP COLUMN user_agent,
        DROP COLUMN client_address`);
  }
}
