import type { LiveFrame, LiveSessionFrames, StoredLiveFrame } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import { listenForNotifications } from './postgres-notification-listener';

/** The NOTIFY channel of live frames; the payload is the session id. */
export const LIVE_SESSION_FRAMES_CHANNEL = 'live_session_frames';

/** How long a lost LISTEN connection waits before it connects again. */

interface FrameRow {
  seq: string;
  page: string;
  content_type: string;
  bytes: Buffer;
  captured_at: Date;
}

/**
 * Live frames through PostgreSQL (docs/decisions/0033-live-browser-sessions.md): the newest frame of each
 * session in `runtime_session_frames`, and a NOTIFY naming the session on every change, sent in the same
 * statement so a watcher that hears it always finds the frame. Watching holds one connection of its own
 * (outside the pool) for LISTEN, reconnected when lost.
 */
export class PostgresLiveSessionFrames implements LiveSessionFrames {
  constructor(private readonly dataSource: DataSource) {}

  async publish(sessionId: string, frame: LiveFrame): Promise<void> {
    await this.query(
      `WITH stored AS (
         INSERT INTO runtime_session_frames AS f (session_id, seq, page, content_type, bytes, captured_at)
         VALUES ($1, 1, $2, $3, $4, $5)
         ON CONFLICT (session_id) DO UPDATE
           SET seq = f.seq + 1, page = EXCLUDED.page, content_type = EXCLUDED.content_type,
               bytes = EXCLUDED.bytes, captured_at = EXCLUDED.captured_at
         RETURNING session_id)
       SELECT pg_notify($6, session_id) FROM stored`,
      [
        sessionId,
        frame.page,
        frame.contentType,
        Buffer.from(frame.bytes),
        frame.capturedAt,
        LIVE_SESSION_FRAMES_CHANNEL,
      ],
    );
  }

  async close(sessionId: string): Promise<void> {
    await this.query(
      `WITH gone AS (DELETE FROM runtime_session_frames WHERE session_id = $1)
       SELECT pg_notify($2, $1)`,
      [sessionId, LIVE_SESSION_FRAMES_CHANNEL],
    );
  }

  async latest(sessionId: string): Promise<StoredLiveFrame | null> {
    const rows = (await this.query(
      'SELECT seq, page, content_type, bytes, captured_at FROM runtime_session_frames WHERE session_id = $1',
      [sessionId],
    )) as FrameRow[];
    const row = rows[0];
    if (row === undefined) return null;
    return {
      seq: Number(row.seq),
      page: row.page,
      contentType: row.content_type,
      bytes: row.bytes,
      capturedAt: row.captured_at,
    };
  }

  async markWatched(sessionId: string, until: Date): Promise<void> {
    // Never shortened: another viewer may want the frames for longer.
    await this.query(
      `UPDATE runtime_sessions SET watched_until = GREATEST(COALESCE(watched_until, $2), $2)
       WHERE id = $1 AND status <> 'ended'`,
      [sessionId, until],
    );
  }

  async watchedUntil(sessionId: string): Promise<Date | null> {
    const rows = (await this.query('SELECT watched_until FROM runtime_sessions WHERE id = $1', [
      sessionId,
    ])) as Array<{ watched_until: Date | null }>;
    return rows[0]?.watched_until ?? null;
  }

  async watch(onChange: (sessionId: string) => void): Promise<() => Promise<void>> {
    return listenForNotifications(
      this.dataSource,
      LIVE_SESSION_FRAMES_CHANNEL,
      'prior-auth-live-frames',
      onChange,
    );
  }

  private async query(sql: string, parameters: unknown[]): Promise<unknown[]> {
    try {
      return (await this.dataSource.query(sql, parameters)) as unknown[];
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}
