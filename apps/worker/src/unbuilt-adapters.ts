import {
  type GrantIssuer,
  type IssuedGrant,
  type LiveSessionView,
  type RuntimeSessions,
} from '@prior-auth/domain';

/*
 * Stand-ins for adapters that are not built yet (the grants package and the payer-portal runtime sessions are
 * later issues), mirroring the API's. The worker reaches them only when a manual handoff expires, which
 * revokes the handoff's grants and releases its runtime session. While the API binds stand-ins whose
 * `provision` and `issue` refuse, no handoff, grant or session can exist, so the no-op answers are exact.
 * Replace both in `composition.ts` / `main.ts` when the real adapters land.
 */

export class NotYetAvailableGrantIssuer implements GrantIssuer {
  issue(): Promise<IssuedGrant> {
    return Promise.reject(new Error('access grants are not available in this build'));
  }

  async revokeForSubject(): Promise<void> {
    // No grant was ever issued through this adapter.
  }
}

export class NotYetAvailableRuntimeSessions implements RuntimeSessions {
  provision(): Promise<{ sessionId: string }> {
    return Promise.reject(new Error('runtime sessions are not available in this build'));
  }

  async liveView(): Promise<LiveSessionView | null> {
    return null;
  }

  async release(): Promise<void> {
    // No session was ever provisioned through this adapter.
  }
}
