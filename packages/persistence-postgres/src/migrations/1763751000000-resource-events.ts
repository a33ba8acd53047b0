import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The integrators' events (docs/decisions/0031-events-and-webhooks.md): one row per event with the snapshot of
 * the resource it is about, written in the transaction of the change. `sequence` orders them (newest first in
 * lists); rows older than the retention are purged by the worker. No foreign key: an event outlives nothing
 * it names, and the purge never has to follow references.
 */
export class ResourceEvents1763751000000 implements MigrationInterface {
  name = 'ResourceEvents1763751000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE events (
        sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        organization_id text NOT NULL,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        type text NOT NULL,
        authorization_id text,
        created_at timestamptz NOT NULL,
        snapshot jsonb NOT NULL
      )`);
    await q.query(`CREATE INDEX events_list_idx ON events (organization_id, environment, sequence DESC)`);
    await q.query(
      `CREATE INDEX events_type_idx ON events (organization_id, environment, type, sequence DESC)`,
    );
    await q.query(`CREATE INDEX events_authorization_idx
      ON events (organization_id, environment, authorization_id, sequence DESC)`);
    await q.query(`CREATE INDEX events_retention_idx ON events (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE events');
  }
}
