import type { Environment, ReplayEntry, ReplaySegmentSummary } from '@prior-auth/domain';

/** A row of `replay_segments`. */
export interface ReplaySegmentRow {
  organization_id: string;
  environment: Environment;
  authorization_id: string;
  runtime_session_id: string;
  seq: number;
  blob_key: string;
  starts_at: Date;
  first_frame_at: Date | null;
  last_frame_at: Date | null;
  frame_count: number;
  expires_at: Date;
}

export const toReplaySegmentSummary = (row: ReplaySegmentRow): ReplaySegmentSummary => ({
  organizationId: row.organization_id,
  environment: row.environment,
  authorizationId: row.authorization_id,
  runtimeSessionId: row.runtime_session_id,
  seq: row.seq,
  blobKey: row.blob_key,
  startsAt: row.starts_at,
  firstFrameAt: row.first_frame_at,
  lastFrameAt: row.last_frame_at,
  frameCount: row.frame_count,
  expiresAt: row.expires_at,
});

/** The stored form of a segment's entries: JSON, the pictures in base64. */
type StoredEntry =
  | { kind: 'frame'; capturedAt: string; page: string; contentType: string; data: string }
  | { kind: 'gap'; at: string; reason: string };

export const REPLAY_SEGMENT_CONTENT_TYPE = 'application/json';

export function encodeReplayEntries(entries: readonly ReplayEntry[]): Uint8Array {
  const stored: StoredEntry[] = entries.map((entry) =>
    entry.kind === 'frame'
      ? {
          kind: 'frame',
          capturedAt: entry.capturedAt.toISOString(),
          page: entry.page,
          contentType: entry.contentType,
          data: Buffer.from(entry.bytes).toString('base64'),
        }
      : { kind: 'gap', at: entry.at.toISOString(), reason: entry.reason },
  );
  return Buffer.from(JSON.stringify({ entries: stored }), 'utf8');
}

export function decodeReplayEntries(bytes: Uint8Array): ReplayEntry[] {
  const { entries } = JSON.parse(Buffer.from(bytes).toString('utf8')) as { entries: StoredEntry[] };
  return entries.map((entry): ReplayEntry => {
    if (entry.kind === 'frame') {
      return {
        kind: 'frame',
        capturedAt: new Date(entry.capturedAt),
        page: entry.page,
        contentType: entry.contentType,
        bytes: Buffer.from(entry.data, 'base64'),
      };
    }
    if (entry.reason !== 'customer_sign_in' && entry.reason !== 'manual_handoff')
      throw new Error(`unknown replay gap reason ${JSON.stringify(entry.reason)}`);
    return { kind: 'gap', at: new Date(entry.at), reason: entry.reason };
  });
}
