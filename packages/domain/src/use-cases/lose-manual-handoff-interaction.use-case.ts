import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { plainContext } from './support/authorization-context.factory';
import { saveClosedHandoff } from './support/handoff-closing.helper';
import { releaseSessionsQuietly } from './support/runtime-session.helper';

export type LoseManualHandoffInteractionDeps = Pick<
  DomainPorts,
  'unitOfWork' | 'clock' | 'ids' | 'runtimeSessions'
>;

/**
 * Called when the runtime reports the operator's session gone for good. What the operator did before is
 * unknown, so reconciliation follows; the authorization stays in requires_action for a new handoff.
 */
export class LoseManualHandoffInteractionUseCase {
  constructor(private readonly deps: LoseManualHandoffInteractionDeps) {}

  async execute(
    scope: TenantScope,
    command: { authorizationId: string; manualHandoffId: string },
  ): Promise<'skipped' | 'closed'> {
    const sessionId = await this.deps.unitOfWork.run(scope, async (tx) => {
      const handoff = await tx.manualHandoffs.findById(command.manualHandoffId);
      if (handoff === null || handoff.currentState !== 'active') return undefined;
      handoff.loseInteraction(plainContext(this.deps));
      await saveClosedHandoff(this.deps, tx, handoff, false);
      return handoff.runtimeSessionId;
    });
    if (sessionId === undefined) return 'skipped';
    await releaseSessionsQuietly(this.deps.runtimeSessions, [sessionId]);
    return 'closed';
  }
}
