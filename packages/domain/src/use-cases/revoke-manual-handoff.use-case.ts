import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { type ManualHandoffCommand } from './complete-manual-handoff.use-case';
import { type ManualHandoffWithAuthorization } from './create-manual-handoff.use-case';
import { loadAuthorization, loadManualHandoff } from './support/aggregate-loading.helper';
import { plainContext } from './support/authorization-context.factory';
import { saveClosedHandoff } from './support/handoff-closing.helper';
import { releaseSessionsQuietly } from './support/runtime-session.helper';

export interface RevokeManualHandoffCommand extends ManualHandoffCommand {
  reason: string;
  notes: string | null;
}

export type RevokeManualHandoffDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'runtimeSessions'>;

/**
 * Takes the interaction away from the operator. Grants are revoked before the commit (a failure leaves the
 * handoff as it was). When the operator had interactive access, reconciliation runs before any payer truth
 * is projected; the authorization itself stays in requires_action meanwhile.
 */
export class RevokeManualHandoffUseCase {
  constructor(private readonly deps: RevokeManualHandoffDeps) {}

  async execute(
    scope: TenantScope,
    command: RevokeManualHandoffCommand,
  ): Promise<ManualHandoffWithAuthorization> {
    const result = await this.deps.unitOfWork.run(scope, async (tx) => {
      const handoff = await loadManualHandoff(tx, command.authorizationId, command.manualHandoffId);
      handoff.assertVersion(command.expectedVersion);
      const authorization = await loadAuthorization(tx, command.authorizationId);
      const reconcilingBefore = handoff.reconciliation?.state === 'pending';
      handoff.revoke(command.reason, command.notes, plainContext(this.deps));
      await saveClosedHandoff(this.deps, tx, handoff, reconcilingBefore);
      return { handoff, authorization };
    });
    await releaseSessionsQuietly(this.deps.runtimeSessions, [result.handoff.runtimeSessionId]);
    return result;
  }
}
