import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0049: the events of one save share one stored snapshot. The last event of the save holds it; the
 * others name that event (`snapshot_event_id`) and hold none. Exactly one of the two is set on every row.
 * Retention deletes oldest first by `sequence`, so an event holding a snapshot never goes before the events
 * that name it. The outbox's index of unpublished events goes: nothing publishes from the outbox, so every row
 * stayed in it.
 */
export class SharedEventSnapshots1763768000000 implements MigrationInterface {
  name = 'SharedEventSnapshots1763768000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events
      ALTER COLUMN snapshot DROP NOT NULL,
      ADD COLUMN snapshot_event_id text,
      ADD CONSTRAINT events_one_snapshot CHECK ((snapshot IS NULL) <> (snapshot_event_id IS NULL))`);
    await q.query('DROP INDEX outbox_events_unpublished_idx');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX outbox_events_unpublished_idx ON outbox_events (sequence) WHERE published_at IS NULL`,
    );
    await q.query(`UPDATE events e SET snapshot = s.snapshot, snapshot_event_id = NULL
      FROM events s WHERE s.id = e.snapshot_event_id`);
    await q.query(`ALTER TABLE events
      DROP CONSTRAINT events_one_snapshot,
      DROP COLUMN snapshot_event_id,
      ALTER COLUMN snapshot SET NOT NULL`);
  }
}
