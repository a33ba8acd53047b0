import { type DomainPorts } from '../ports';
import { type GrantKind } from '../ports/grant-issuer.port';
import { type TenantScope } from '../shared/scope';

export type ResolveGrantTargetDeps = Pick<DomainPorts, 'unitOfWork' | 'runtimeSessions'>;

/**
 * Where an opened, unexpired, unrevoked access grant leads, re-checked against the current state rather than
 * trusted from issue time: an interactive grant only into the session of a handoff that is still `active`, a
 * live-session grant only into a read-only view of a session that has not ended. Null refuses the opening.
 */
export class ResolveGrantTargetUseCase {
  constructor(private readonly deps: ResolveGrantTargetDeps) {}

  async execute(grant: {
    scope: TenantScope;
    kind: GrantKind;
    subjectId: string;
    expiresAt: Date;
    /** The grant being opened (handed on to the session's view, which audits its own use of it). */
    grantId?: string;
  }): Promise<string | null> {
    if (grant.kind === 'manual_handoff') {
      const sessionId = await this.deps.unitOfWork.run(grant.scope, async (tx) => {
        const handoff = await tx.manualHandoffs.findById(grant.subjectId);
        return handoff?.currentState === 'active' ? handoff.runtimeSessionId : null;
      });
      return sessionId === null
        ? null
        : this.deps.runtimeSessions.accessUrl(sessionId, 'interactive', grant.expiresAt, grant.grantId);
    }
    const live = await this.deps.runtimeSessions.liveView(grant.scope, grant.subjectId);
    if (live === null || live.status === 'ended') return null;
    return this.deps.runtimeSessions.accessUrl(live.sessionId, 'read_only', grant.expiresAt, grant.grantId);
  }
}
