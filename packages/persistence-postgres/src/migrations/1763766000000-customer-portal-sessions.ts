import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0044: the payer portal session a customer signed in to for a `customer_login` case, sealed with the
 * portal credentials' key (decision 0021), so every worker of the cluster can go on from it. One row per case,
 * gone with its case, short-lived (`expires_at`, purged on a schedule).
 */
export class CustomerPortalSessions1763766000000 implements MigrationInterface {
  name = 'CustomerPortalSessions1763766000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE customer_portal_sessions (
      organization_id text NOT NULL,
      environment text NOT NULL,
      authorization_id text NOT NULL,
      state_sealed text NOT NULL,
      key_id text NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, environment, authorization_id),
      FOREIGN KEY (organization_id, environment, authorization_id)
        REFERENCES authorizations (organization_id, environment, id) ON DELETE CASCADE
    )`);
    await q.query(
      'CREATE INDEX customer_portal_sessions_expiry_idx ON customer_portal_sessions (expires_at)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE customer_portal_sessions');
  }
}
