import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0050: the domain's events are recorded in the audit log only. `outbox_events` held the same events a
 * second time, was read by nothing and purged by nothing. `down` brings the table back, filled from the audit
 * rows of the events (each names its event id).
 */
export class DomainEventsInAuditLog1763769000000 implements MigrationInterface {
  name = 'DomainEventsInAuditLog1763769000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE outbox_events');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE outbox_events (
        sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        aggregate_type text NOT NULL CHECK (aggregate_type IN ('authorization', 'file', 'manual_handoff')),
        aggregate_id text NOT NULL,
        type text NOT NULL,
        occurred_at timestamptz NOT NULL,
        payload jsonb NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    await q.query(`CREATE INDEX outbox_events_aggregate_idx
      ON outbox_events (organization_id, environment, aggregate_type, aggregate_id, sequence)`);
    await q.query(`
      INSERT INTO outbox_events
        (id, organization_id, environment, aggregate_type, aggregate_id, type, occurred_at, payload, recorded_at)
      SELECT details->>'eventId', organization_id, environment, subject_type, subject_id, action, occurred_at,
             details - 'eventId', recorded_at
        FROM audit_log
       WHERE details ? 'eventId' AND subject_type IN ('authorization', 'file', 'manual_handoff')
       ORDER BY id`);
  }
}
