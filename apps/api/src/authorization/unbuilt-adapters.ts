import type { GrantIssuer, IssuedGrant, LiveSessionView, RuntimeSessions } from '@prior-auth/domain';

/*
 * Stand-ins for adapters that are not built yet (the grants package and the payer-portal runtime sessions are
 * later issues). The authorization endpoints only reach them through cancel, which revokes the grants and
 * releases the sessions of open manual handoffs. Nothing can create a handoff, a grant or a session while
 * these stand-ins are bound (`issue` and `provision` refuse), so there is never anything to revoke or release
 * and the no-op answers are exact, not approximations. Replace both bindings in `container.ts` when the real
 * adapters land.
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
