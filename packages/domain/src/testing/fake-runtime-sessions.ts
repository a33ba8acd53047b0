import { type LiveSessionView, type RuntimeSessions } from '../ports/runtime-sessions.port';

export class FakeRuntimeSessions implements RuntimeSessions {
  readonly sessions = new Map<string, LiveSessionView & { authorizationId: string }>();
  readonly released: string[] = [];
  failProvision: Error | null = null;

  async provision(authorizationId: string): Promise<{ sessionId: string }> {
    if (this.failProvision !== null) throw this.failProvision;
    const sessionId = `rs_${this.sessions.size + 1}`;
    this.sessions.set(sessionId, { sessionId, status: 'active', authorizationId });
    return { sessionId };
  }

  async liveView(authorizationId: string): Promise<LiveSessionView | null> {
    const live = [...this.sessions.values()].reverse().find((s) => s.authorizationId === authorizationId);
    return live === undefined ? null : { sessionId: live.sessionId, status: live.status };
  }

  async release(sessionId: string): Promise<void> {
    this.released.push(sessionId);
    const session = this.sessions.get(sessionId);
    if (session !== undefined) session.status = 'ended';
  }
}
