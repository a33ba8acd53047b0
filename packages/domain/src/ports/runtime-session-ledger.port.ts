import { type TenantScope } from '../shared/scope';
import { type LiveSessionStatus } from './runtime-sessions.port';

/** One runtime session as stored: which tenant's authorization it serves and where it stands. */
export interface RuntimeSessionRecord {
  scope: TenantScope;
  /** Globally unique, so a session can be released or opened by id alone. */
  id: string;
  authorizationId: string;
  /** Which runtime provider runs the browser (for example `sandbox`). */
  provider: string;
  status: LiveSessionStatus;
  createdAt: Date;
  /** Set exactly when `status` is `ended`. */
  endedAt: Date | null;
}

/** A live session the sweep ended: which case it served. */
export type AbandonedRuntimeSession = Pick<RuntimeSessionRecord, 'id' | 'scope' | 'authorizationId'>;

/** A session as first stored: never already ended. */
export type NewRuntimeSession = Omit<RuntimeSessionRecord, 'status' | 'endedAt'> & {
  status: Exclude<LiveSessionStatus, 'ended'>;
};

/**
 * Storage for runtime sessions, shared by every process so that any of them can answer, release or open a
 * session another one provisioned. Writes join the caller's transaction when there is one, so a session
 * provisioned while creating a handoff disappears if that creation rolls back.
 */
export interface RuntimeSessionLedger {
  create(session: NewRuntimeSession): Promise<void>;
  /** The authorization's newest session that has not ended. */
  findLive(scope: TenantScope, authorizationId: string): Promise<RuntimeSessionRecord | null>;
  find(sessionId: string): Promise<RuntimeSessionRecord | null>;
  /** Ends the session at `at`; true when this call ended it, false when it had already ended or is unknown. */
  end(sessionId: string, at: Date): Promise<boolean>;
  /**
   * The process owning these sessions' browsers is alive at `at` (decision 0039). Only sessions a process owns
   * beat; sessions that never beat (provisioned by the API for a handoff) are never taken for abandoned.
   */
  beat(sessionIds: readonly string[], at: Date): Promise<void>;
  /** Ends, at `at`, every live session whose last beat is older than `lastBeatBefore`; answers those it ended. */
  endAbandoned(lastBeatBefore: Date, at: Date): Promise<AbandonedRuntimeSession[]>;
}

/**
 * How often the owner of live sessions beats for them, and after how long without a beat a session counts as
 * abandoned by an owner that died (decision 0039): six beats missed, so a stalled but living process keeps them.
 */
export const LIVE_SESSION_HEARTBEAT_MS = 10_000;
export const LIVE_SESSION_ABANDONED_AFTER_MS = 60_000;
