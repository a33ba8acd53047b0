import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook deliveries (docs/decisions/0031-events-and-webhooks.md): one row per event and matching endpoint,
 * written in the event's transaction, and one row per attempt to send it. `sequence` orders a tenant's
 * deliveries (newest first in lists, oldest first when waiting for an earlier delivery of the same case).
 * `failing_since` on an endpoint is when its current run of failures began (null while it succeeds).
 */
export class WebhookDeliveries1763754000000 implements MigrationInterface {
  name = 'WebhookDeliveries1763754000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_deliveries (
        sequence bigint GENERATED ALWAYS AS IDENTITY,
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        id text NOT NULL,
        endpoint_id text NOT NULL,
        event_id text NOT NULL,
        event_type text NOT NULL,
        authorization_id text,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, environment, id)
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_list_idx
      ON webhook_deliveries (organization_id, environment, endpoint_id, sequence DESC)`);
    await q.query(`CREATE INDEX webhook_deliveries_pending_case_idx
      ON webhook_deliveries (organization_id, environment, endpoint_id, authorization_id, sequence)
      WHERE status = 'pending'`);
    await q.query(`
      CREATE TABLE webhook_delivery_attempts (
        organization_id text NOT NULL,
        environment text NOT NULL,
        delivery_id text NOT NULL,
        attempt_number integer NOT NULL CHECK (attempt_number >= 1),
        attempted_at timestamptz NOT NULL,
        status_code integer,
        duration_ms integer NOT NULL,
        response_excerpt text,
        error text,
        PRIMARY KEY (organization_id, environment, delivery_id, attempt_number)
      )`);
    await q.query('ALTER TABLE webhook_endpoints ADD COLUMN failing_since timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE webhook_endpoints DROP COLUMN failing_since');
    await q.query('DROP TABLE webhook_delivery_attempts');
    await q.query('DROP TABLE webhook_deliveries');
  }
}
