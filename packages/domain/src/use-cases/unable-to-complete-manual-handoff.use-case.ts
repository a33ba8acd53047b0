import { type UnableToCompleteReason } from '../manual-handoff/manual-handoff.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { type ManualHandoffCommand } from './complete-manual-handoff.use-case';
import { type ManualHandoffWithAuthorization } from './create-manual-handoff.use-case';
import { loadAuthorization, loadManualHandoff } from './support/aggregate-loading.helper';
import { saveAuthorization, saveManualHandoff } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';
import { releaseSessionsQuietly } from './support/runtime-session.helper';
import { WORKER_JOB_TYPES } from './support/worker-jobs';

export interface UnableToCompleteManualHandoffCommand extends ManualHandoffCommand {
  reason: UnableToCompleteReason;
  operatorNotes: string | null;
}

export type UnableToCompleteManualHandoffDeps = Pick<
  DomainPorts,
  'unitOfWork' | 'clock' | 'ids' | 'grantIssuer' | 'runtimeSessions'
>;

/**
 * The operator's explicit "could not do it". The handoff closes and the authorization returns to processing
 * (the spec's "processing projection"); the pipeline then asks the payer before anything else, since the final
 * boundary is crossed, and re-opens a payer interaction if a human is still needed.
 */
export class UnableToCompleteManualHandoffUseCase {
  constructor(private readonly deps: UnableToCompleteManualHandoffDeps) {}

  async execute(
    scope: TenantScope,
    command: UnableToCompleteManualHandoffCommand,
  ): Promise<ManualHandoffWithAuthorization> {
    const result = await this.deps.unitOfWork.run(scope, async (tx) => {
      const handoff = await loadManualHandoff(tx, command.authorizationId, command.manualHandoffId);
      handoff.assertVersion(command.expectedVersion);
      const authorization = await loadAuthorization(tx, command.authorizationId);
      const now = this.deps.clock.now();
      handoff.unableToComplete(command.reason, command.operatorNotes, now);
      if (authorization.nextAction?.id === handoff.interactionActionId) {
        authorization.resumeAfterManualInteraction(authorizationContext(this.deps, now));
        await saveAuthorization(tx, this.deps.ids, authorization);
        await tx.jobs.enqueue({ type: WORKER_JOB_TYPES.process, authorizationId: authorization.id });
      }
      await this.deps.grantIssuer.revokeForSubject(handoff.id);
      await saveManualHandoff(tx, this.deps.ids, handoff);
      return { handoff, authorization };
    });
    await releaseSessionsQuietly(this.deps.runtimeSessions, [result.handoff.runtimeSessionId]);
    return result;
  }
}
