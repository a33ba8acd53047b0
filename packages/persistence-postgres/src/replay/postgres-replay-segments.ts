import {
  REPLAY_RETENTION_MS,
  replaySegmentBlobKey,
  type BlobStore,
  type ReplayEntry,
  type ReplayRunKey,
  type ReplaySegments,
  type ReplaySegmentSummary,
  type TenantScope,
} from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { runSql } from '../unit-of-work/sql';
import {
  decodeReplayEntries,
  encodeReplayEntries,
  REPLAY_SEGMENT_CONTENT_TYPE,
  toReplaySegmentSummary,
  type ReplaySegmentRow,
} from './replay-segment.mapper';

const COLUMNS = `organization_id, environment, authorization_id, runtime_session_id, seq, blob_key, starts_at,
  first_frame_at, last_frame_at, frame_count, expires_at`;

/**
 * Replay segments (docs/decisions/0045-portal-run-replays.md): each segment's entries are one object in blob
 * storage, its row in `replay_segments` says whose run it is and until when it is kept. The bytes are written
 * before the row and deleted before it, so a row never names bytes that are gone.
 */
export class PostgresReplaySegments implements ReplaySegments {
  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
    private readonly retentionMs: number = REPLAY_RETENTION_MS,
  ) {}

  async append(key: ReplayRunKey, seq: number, entries: readonly ReplayEntry[], now: Date): Promise<void> {
    if (entries.length === 0) return;
    const frames = entries.flatMap((entry) => (entry.kind === 'frame' ? [entry.capturedAt] : []));
    const first = entries[0]!;
    const blobKey = replaySegmentBlobKey(key, seq);
    await this.blobs.put(blobKey, encodeReplayEntries(entries), { contentType: REPLAY_SEGMENT_CONTENT_TYPE });
    await runSql(
      this.dataSource.manager,
      `INSERT INTO replay_segments (${COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (organization_id, environment, authorization_id, runtime_session_id, seq) DO NOTHING`,
      [
        key.organizationId,
        key.environment,
        key.authorizationId,
        key.runtimeSessionId,
        seq,
        blobKey,
        first.kind === 'frame' ? first.capturedAt : first.at,
        frames[0] ?? null,
        frames[frames.length - 1] ?? null,
        frames.length,
        new Date(now.getTime() + this.retentionMs),
      ],
    );
  }

  async list(scope: TenantScope, authorizationId: string, now: Date): Promise<ReplaySegmentSummary[]> {
    const { rows } = await runSql<ReplaySegmentRow>(
      this.dataSource.manager,
      `SELECT ${COLUMNS} FROM replay_segments
        WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3 AND expires_at > $4
        ORDER BY starts_at, runtime_session_id, seq`,
      [scope.organizationId, scope.environment, authorizationId, now],
    );
    return rows.map(toReplaySegmentSummary);
  }

  async read(segment: ReplaySegmentSummary): Promise<ReplayEntry[]> {
    const stat = await this.blobs.stat(segment.blobKey);
    if (stat === null) return [];
    return decodeReplayEntries(await this.blobs.readHead(segment.blobKey, stat.sizeBytes));
  }

  /** In batches: each expired segment's bytes go, then its row; a failed delete leaves both for the next run. */
  async purgeExpired(now: Date): Promise<number> {
    let purged = 0;
    for (;;) {
      const { rows } = await runSql<ReplaySegmentRow>(
        this.dataSource.manager,
        `SELECT ${COLUMNS} FROM replay_segments WHERE expires_at <= $1 ORDER BY expires_at LIMIT 200`,
        [now],
      );
      if (rows.length === 0) return purged;
      for (const row of rows) {
        await this.blobs.delete(row.blob_key);
        const { rowCount } = await runSql(
          this.dataSource.manager,
          `DELETE FROM replay_segments
            WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3
              AND runtime_session_id = $4 AND seq = $5`,
          [row.organization_id, row.environment, row.authorization_id, row.runtime_session_id, row.seq],
        );
        purged += rowCount;
      }
    }
  }
}
