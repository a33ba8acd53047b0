import { type Clock } from '../ports/clock.port';
import {
  type LiveSessionView,
  type RuntimeSessionAccess,
  type RuntimeSessions,
} from '../ports/runtime-sessions.port';
import { type TenantScope } from '../shared/scope';

export interface FakeRuntimeSession extends LiveSessionView {
  scope: TenantScope;
  authorizationId: string;
}

export class FakeRuntimeSessions implements RuntimeSessions {
  readonly sessions = new Map<string, FakeRuntimeSession>();
  readonly released: string[] = [];
  failProvision: Error | null = null;

  constructor(private readonly clock: Clock = { now: () => new Date() }) {}

  async provision(scope: TenantScope, authorizationId: string): Promise<{ sessionId: string }> {
    if (this.failProvision !== null) throw this.failProvision;
    const sessionId = `rs_${this.sessions.size + 1}`;
    this.sessions.set(sessionId, {
      sessionId,
      status: 'active',
      startedAt: this.clock.now(),
      scope: { ...scope },
      authorizationId,
    });
    return { sessionId };
  }

  async liveView(scope: TenantScope, authorizationId: string): Promise<LiveSessionView | null> {
    const live = [...this.sessions.values()]
      .reverse()
      .find(
        (s) =>
          s.status !== 'ended' &&
          s.authorizationId === authorizationId &&
          s.scope.organizationId === scope.organizationId &&
          s.scope.environment === scope.environment,
      );
    return live === undefined
      ? null
      : { sessionId: live.sessionId, status: live.status, startedAt: live.startedAt };
  }

  async release(sessionId: string): Promise<void> {
    this.released.push(sessionId);
    const session = this.sessions.get(sessionId);
    if (session !== undefined) session.status = 'ended';
  }

  async accessUrl(sessionId: string, access: RuntimeSessionAccess, expiresAt: Date): Promise<string | null> {
    const session = this.sessions.get(sessionId);
    if (session === undefined || session.status === 'ended') return null;
    return `memory://runtime-sessions/${sessionId}?access=${access}&expires=${expiresAt.getTime()}`;
  }
}
