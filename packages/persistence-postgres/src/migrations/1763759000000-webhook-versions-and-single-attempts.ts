import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/decisions/0037-webhook-versions-attempts-and-request-schemas.md:
 * - `webhook_endpoints.api_version`: the API version an endpoint's deliveries are rendered in. Endpoints that
 *   exist already were delivered in the current version (2025-01-01), so they keep it. As for API keys
 *   (1763748000000), the values are checked by the API against its one list of versions, not here. The
 *   endpoint snapshots of stored events (`webhook_endpoint.*`) get the same value, so every snapshot has one.
 * - `webhook_deliveries.attempt_token`: the token of the one job allowed to send the delivery; a job whose
 *   token is no longer the delivery's (replaced by a manual retry or a follow-up) sends nothing.
 *   `sending_since`: when the job holding the token began its send (null when none is in flight), so a
 *   manual retry does not start a second send next to one in flight. Rows written before have no token;
 *   their queued jobs carry none either, and match.
 */
export class WebhookVersionsAndSingleAttempts1763759000000 implements MigrationInterface {
  name = 'WebhookVersionsAndSingleAttempts1763759000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints ADD COLUMN api_version text NOT NULL DEFAULT '2025-01-01'`);
    await q.query('ALTER TABLE webhook_endpoints ALTER COLUMN api_version DROP DEFAULT');
    await q.query(`UPDATE events SET snapshot = jsonb_set(snapshot, '{endpoint,apiVersion}', '"2025-01-01"')
      WHERE snapshot->>'kind' = 'webhook_endpoint' AND NOT snapshot->'endpoint' ? 'apiVersion'`);
    await q.query('ALTER TABLE webhook_deliveries ADD COLUMN attempt_token text');
    await q.query('ALTER TABLE webhook_deliveries ADD COLUMN sending_since timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE webhook_deliveries DROP COLUMN sending_since');
    await q.query('ALTER TABLE webhook_deliveries DROP COLUMN attempt_token');
    await q.query('ALTER TABLE webhook_endpoints DROP COLUMN api_version');
  }
}
