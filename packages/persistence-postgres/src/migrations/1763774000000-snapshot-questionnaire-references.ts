import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0060: an event's snapshot of a case whose questionnaire is a stored catalog template (decision 0059)
 * points at that stored copy instead of carrying its own: `{"$questionnaire": "<id>"}` in the snapshot's text,
 * and the id in `snapshot_questionnaire_id`, whose foreign key keeps the document. Rows written before keep
 * theirs. A snapshot that small now fits in its row's page, and stays there uncompressed, as a case's row does
 * (decision 0051). `down` writes each questionnaire back into its snapshots before dropping the column.
 */
export class SnapshotQuestionnaireReferences1763774000000 implements MigrationInterface {
  name = 'SnapshotQuestionnaireReferences1763774000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events
      ADD COLUMN snapshot_questionnaire_id text REFERENCES questionnaire_documents (id),
      ADD CONSTRAINT events_snapshot_questionnaire_with_snapshot
        CHECK (snapshot_questionnaire_id IS NULL OR snapshot IS NOT NULL)`);
    await q.query('ALTER TABLE events SET (toast_tuple_target = 8160)');
  }

  async down(q: QueryRunner): Promise<void> {
    // The tag is written by JSON.stringify, with no spaces; an id is base64url, so it needs no escaping.
    await q.query(`UPDATE events e
      SET snapshot = replace(e.snapshot::text, '{"$questionnaire":"' || d.id || '"}', d.document::text)::json,
        snapshot_questionnaire_id = NULL
      FROM questionnaire_documents d WHERE d.id = e.snapshot_questionnaire_id`);
    // The rows' checks run now: a table with pending ones cannot be altered in the same transaction.
    await q.query('SET CONSTRAINTS ALL IMMEDIATE');
    await q.query('ALTER TABLE events RESET (toast_tuple_target)');
    await q.query(`ALTER TABLE events
      DROP CONSTRAINT events_snapshot_questionnaire_with_snapshot,
      DROP COLUMN snapshot_questionnaire_id`);
  }
}
