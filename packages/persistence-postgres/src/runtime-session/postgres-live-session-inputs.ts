import type { LiveInput, LiveSessionInputs, StoredLiveInput } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import { managerOf, type PostgresTransaction } from '../unit-of-work/postgres-transaction';
import { listenForNotifications } from './postgres-notification-listener';

/** The NOTIFY channel of live inputs; the payload is the session id. */
export const LIVE_SESSION_INPUTS_CHANNEL = 'live_session_inputs';

/**
 * Live input through PostgreSQL (docs/decisions/0038-interactive-manual-handoff.md), the reverse direction of
 * `PostgresLiveSessionFrames`: each input is a row of `runtime_session_inputs`, inserted with a NOTIFY naming
 * the session in the same statement; the owner of the browser takes (deletes and reads) a session's rows in
 * order. Watching holds one connection of its own for LISTEN, reconnected when lost.
 */
export class PostgresLiveSessionInputs implements LiveSessionInputs {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx?: PostgresTransaction,
  ) {}

  /** The same reads on `tx`'s connection (a command's: no second connection while it holds one). */
  on(tx: PostgresTransaction): PostgresLiveSessionInputs {
    return new PostgresLiveSessionInputs(this.dataSource, tx);
  }

  async send(sessionId: string, input: LiveInput): Promise<void> {
    // Only into a live session: an ended one's owner takes nothing more, and the text would just stay.
    await this.query(
      `WITH stored AS (
         INSERT INTO runtime_session_inputs (session_id, input)
         SELECT id, $2::jsonb FROM runtime_sessions WHERE id = $1 AND status <> 'ended'
         RETURNING session_id)
       SELECT pg_notify($3, session_id) FROM stored`,
      [sessionId, JSON.stringify(input), LIVE_SESSION_INPUTS_CHANNEL],
    );
  }

  async take(sessionId: string): Promise<StoredLiveInput[]> {
    const result = await this.query(
      'DELETE FROM runtime_session_inputs WHERE session_id = $1 RETURNING seq, input',
      [sessionId],
    );
    // A DELETE answers [rows, affected count] through the data source.
    const rows = (Array.isArray(result[0]) ? result[0] : result) as Array<{ seq: string; input: LiveInput }>;
    return rows.map((row) => ({ seq: Number(row.seq), input: row.input })).sort((a, b) => a.seq - b.seq);
  }

  async discard(sessionId: string): Promise<void> {
    await this.query('DELETE FROM runtime_session_inputs WHERE session_id = $1', [sessionId]);
  }

  async hold(sessionId: string, until: Date): Promise<void> {
    await this.query(`UPDATE runtime_sessions SET held_until = $2 WHERE id = $1 AND status <> 'ended'`, [
      sessionId,
      until,
    ]);
  }

  async heldUntil(sessionId: string): Promise<Date | null> {
    const rows = (await this.query('SELECT held_until FROM runtime_sessions WHERE id = $1', [
      sessionId,
    ])) as Array<{ held_until: Date | null }>;
    return rows[0]?.held_until ?? null;
  }

  async watch(onInput: (sessionId: string) => void): Promise<() => Promise<void>> {
    return listenForNotifications(
      this.dataSource,
      LIVE_SESSION_INPUTS_CHANNEL,
      'prior-auth-live-inputs',
      onInput,
    );
  }

  private async query(sql: string, parameters: unknown[]): Promise<unknown[]> {
    try {
      return (await managerOf(this.dataSource, this.tx).query(sql, parameters)) as unknown[];
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}
