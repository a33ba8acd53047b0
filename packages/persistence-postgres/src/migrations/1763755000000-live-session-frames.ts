import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The latest screen of each live browser session, written by the worker that owns the browser and read by any
 * API process that serves its live view; a NOTIFY on `live_session_frames` tells the API processes when a
 * frame or the end of a session arrives (decision 0033). One row per session: a viewer only ever needs the
 * newest frame. A session's `watched_until` says until when a viewer wants its frames: the owner captures
 * frames only while someone watches. Openings of a live view gain two audited outcomes: `viewed` (the view or its stream was
 * served) and `input_refused` (input sent to a read-only view).
 */
export class LiveSessionFrames1763755000000 implements MigrationInterface {
  name = 'LiveSessionFrames1763755000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE runtime_session_frames (
        session_id text PRIMARY KEY REFERENCES runtime_sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        page text NOT NULL,
        content_type text NOT NULL,
        bytes bytea NOT NULL,
        captured_at timestamptz NOT NULL
      )`);
    await q.query('ALTER TABLE runtime_sessions ADD COLUMN watched_until timestamptz');
    await q.query(`
      ALTER TABLE access_grant_openings
        DROP CONSTRAINT access_grant_openings_outcome_check,
        ADD CONSTRAINT access_grant_openings_outcome_check
          CHECK (outcome IN ('redirected', 'expired', 'revoked', 'subject_inactive', 'invalid', 'viewed', 'input_refused'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM access_grant_openings WHERE outcome IN ('viewed', 'input_refused')`);
    await q.query(`
      ALTER TABLE access_grant_openings
        DROP CONSTRAINT access_grant_openings_outcome_check,
        ADD CONSTRAINT access_grant_openings_outcome_check
          CHECK (outcome IN ('redirected', 'expired', 'revoked', 'subject_inactive', 'invalid'))`);
    await q.query('DROP TABLE runtime_session_frames');
    await q.query('ALTER TABLE runtime_sessions DROP COLUMN watched_until');
  }
}
