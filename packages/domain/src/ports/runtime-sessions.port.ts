import { type TenantScope } from '../shared/scope';

export type LiveSessionStatus = 'starting' | 'active' | 'ended';

export interface LiveSessionView {
  sessionId: string;
  status: LiveSessionStatus;
  startedAt: Date;
}

/** How an opened access grant may use a session: act in it (manual handoff) or only watch it (live view). */
export type RuntimeSessionAccess = 'interactive' | 'read_only';

/** Browser runtime sessions at the payer portal, used by manual handoffs and live views. */
export interface RuntimeSessions {
  /**
   * A session for a manual handoff. `adopted`: an existing session was taken over (the browser page a worker
   * keeps for an operator, decision 0038); it is not the creator's to release should the handoff not be saved.
   */
  provision(scope: TenantScope, authorizationId: string): Promise<{ sessionId: string; adopted?: boolean }>;
  /** The authorization's newest session that has not ended, if any; a pure read. */
  liveView(scope: TenantScope, authorizationId: string): Promise<LiveSessionView | null>;
  /** Ends the session; ending one that already ended (or never existed) is a no-op. */
  release(sessionId: string): Promise<void>;
  /**
   * Where an opened access grant sends its holder, valid until `expiresAt`; null when the session has ended or
   * is unknown. Session ids are globally unique, so no scope is needed: the grant service already checked it.
   * `grantId` names the grant being opened, for providers whose view checks and audits it again on every use.
   */
  accessUrl(
    sessionId: string,
    access: RuntimeSessionAccess,
    expiresAt: Date,
    grantId?: string,
  ): Promise<string | null>;
}
