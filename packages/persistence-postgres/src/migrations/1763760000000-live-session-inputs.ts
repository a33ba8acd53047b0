import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The input of a person on an interactive live view (decision 0038), on its way from the API process that
 * serves the view to the worker that owns the browser: one row per input, numbered in the order sent, deleted
 * by the owner as it takes them; a NOTIFY on `live_session_inputs` (payload: the session id) tells the owner.
 * Dropped with the session. A session's `held_until` says until when its worker keeps the browser page for an
 * operator after the portal demanded a human; a manual handoff created meanwhile adopts that session.
 */
export class LiveSessionInputs1763760000000 implements MigrationInterface {
  name = 'LiveSessionInputs1763760000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE runtime_session_inputs (
        seq bigserial PRIMARY KEY,
        session_id text NOT NULL REFERENCES runtime_sessions (id) ON DELETE CASCADE,
        input jsonb NOT NULL,
        sent_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      'CREATE INDEX runtime_session_inputs_session_idx ON runtime_session_inputs (session_id, seq)',
    );
    await q.query('ALTER TABLE runtime_sessions ADD COLUMN held_until timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE runtime_sessions DROP COLUMN held_until');
    await q.query('DROP TABLE runtime_session_inputs');
  }
}
