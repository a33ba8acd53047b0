import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints (docs/decisions/0031-events-and-webhooks.md): one row per endpoint of a tenant. `secrets`
 * holds the sealed (encrypted) signing secrets, the current one first; never a secret in clear.
 */
export class WebhookEndpoints1763752000000 implements MigrationInterface {
  name = 'WebhookEndpoints1763752000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        id text NOT NULL,
        url text NOT NULL,
        description text,
        enabled_events jsonb NOT NULL,
        disabled boolean NOT NULL,
        secrets jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        PRIMARY KEY (organization_id, environment, id)
      )`);
    await q.query(`CREATE INDEX webhook_endpoints_list_idx
      ON webhook_endpoints (organization_id, environment, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_endpoints');
  }
}
