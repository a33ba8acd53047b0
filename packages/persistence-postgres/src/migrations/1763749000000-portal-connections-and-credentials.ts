import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0021: a payer's portal connection (base URL + the name of its page script) and an organization's
 * credentials for a payer's portal. Secrets are stored sealed (AES-256-GCM, one text value each, naming the
 * key that sealed them); `key_id` repeats the key of the row's secrets so a rotation can find what is left.
 */
export class PortalConnectionsAndCredentials1763749000000 implements MigrationInterface {
  name = 'PortalConnectionsAndCredentials1763749000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE payer_portal_connections (
        payer_id text PRIMARY KEY REFERENCES payers(id),
        base_url text NOT NULL,
        page_script text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )
    `);
    await q.query(`
      CREATE TABLE portal_credentials (
        organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        payer_id text NOT NULL REFERENCES payers(id),
        username text NOT NULL,
        password_sealed text NOT NULL,
        totp_secret_sealed text,
        key_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, payer_id)
      )
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE portal_credentials');
    await q.query('DROP TABLE payer_portal_connections');
  }
}
