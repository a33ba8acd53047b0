import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0039: the process owning a live session's browser beats for it (`heartbeat_at`); a sweep ends the
 * live sessions whose beats stopped (their owner died), served by a partial index of live sessions that beat.
 * Input a person sent to a session nobody took is dropped with its end from now on; what ended sessions kept
 * until now goes here.
 */
export class LiveSessionHeartbeats1763761000000 implements MigrationInterface {
  name = 'LiveSessionHeartbeats1763761000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE runtime_sessions ADD COLUMN heartbeat_at timestamptz');
    await q.query(`CREATE INDEX runtime_sessions_heartbeat_idx ON runtime_sessions (heartbeat_at)
      WHERE status <> 'ended' AND heartbeat_at IS NOT NULL`);
    await q.query(`DELETE FROM runtime_session_inputs i USING runtime_sessions s
      WHERE s.id = i.session_id AND s.status = 'ended'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX runtime_sessions_heartbeat_idx');
    await q.query('ALTER TABLE runtime_sessions DROP COLUMN heartbeat_at');
  }
}
