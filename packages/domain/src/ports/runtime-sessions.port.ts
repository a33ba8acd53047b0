export type LiveSessionStatus = 'starting' | 'active' | 'ended';

export interface LiveSessionView {
  sessionId: string;
  status: LiveSessionStatus;
}

/** Browser runtime sessions at the payer portal, used by manual handoffs and live views. */
export interface RuntimeSessions {
  provision(authorizationId: string): Promise<{ sessionId: string }>;
  /** The authorization's current session, if any; a pure read. */
  liveView(authorizationId: string): Promise<LiveSessionView | null>;
  release(sessionId: string): Promise<void>;
}
