import { type Environment, type TenantScope } from '../shared/scope';

/** How long a portal run's replay is kept as internal evidence (docs/decisions/0045-portal-run-replays.md). */
export const REPLAY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Why a replay has no frames for a while: a person was driving the page, so nothing of it was recorded. */
export type ReplayGapReason = 'customer_sign_in' | 'manual_handoff';

/** One recorded picture of a portal run's page, with the page's path (never its query). */
export interface ReplayFrame {
  kind: 'frame';
  capturedAt: Date;
  page: string;
  contentType: string;
  bytes: Uint8Array;
}

/** Where recording stopped because a person took the page; the replay shows the marker instead of frames. */
export interface ReplayGap {
  kind: 'gap';
  at: Date;
  reason: ReplayGapReason;
}

export type ReplayEntry = ReplayFrame | ReplayGap;

/** Which run a replay belongs to: a case of one tenant, and the runtime session the run was shown as. */
export interface ReplayRunKey {
  organizationId: string;
  environment: Environment;
  authorizationId: string;
  runtimeSessionId: string;
}

/** What is known of a stored segment without reading its bytes. */
export interface ReplaySegmentSummary extends ReplayRunKey {
  /** The segment's place in its run, from 1. */
  seq: number;
  blobKey: string;
  firstFrameAt: Date | null;
  lastFrameAt: Date | null;
  frameCount: number;
  /** The time of its first entry (a frame or a gap). */
  startsAt: Date;
  expiresAt: Date;
}

/**
 * Replay segments of portal runs (docs/decisions/0045-portal-run-replays.md): batches of a run's recorded
 * frames and gap markers, kept as internal evidence until they expire. Not a public resource.
 */
export interface ReplaySegments {
  /** Keeps one batch of a run's entries (oldest first) as its segment `seq`, until `now` + the retention. */
  append(key: ReplayRunKey, seq: number, entries: readonly ReplayEntry[], now: Date): Promise<void>;
  /** The case's segments not yet expired at `now`, in recording order (run by run, segment by segment). */
  list(scope: TenantScope, authorizationId: string, now: Date): Promise<ReplaySegmentSummary[]>;
  /** A segment's entries, oldest first. */
  read(segment: ReplaySegmentSummary): Promise<ReplayEntry[]>;
  /** Drops the segments expired at `now`, their bytes first; returns how many went. */
  purgeExpired(now: Date): Promise<number>;
}

/** The blob key of a segment: under its tenant like every stored object (decision 0006). */
export const replaySegmentBlobKey = (key: ReplayRunKey, seq: number): string =>
  `${key.environment}/${key.organizationId}/replays/${key.authorizationId}/${key.runtimeSessionId}-${seq}.json`;
