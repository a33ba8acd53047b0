import { type CompletionReport } from '../manual-handoff/manual-handoff.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { type ManualHandoffWithAuthorization } from './create-manual-handoff.use-case';
import { loadAuthorization, loadManualHandoff } from './support/aggregate-loading.helper';
import { saveAuthorization, saveManualHandoff } from './support/aggregate-persistence.helper';
import { authorizationContext, plainContext } from './support/authorization-context.factory';
import { releaseSessionsQuietly } from './support/runtime-session.helper';
import { WORKER_JOB_TYPES } from './support/worker-jobs';

export interface ManualHandoffCommand {
  authorizationId: string;
  manualHandoffId: string;
  /** The manual handoff's version (its ETag). */
  expectedVersion: number;
}

export type CompleteManualHandoffCommand = ManualHandoffCommand & CompletionReport;

export type CompleteManualHandoffDeps = Pick<
  DomainPorts,
  'unitOfWork' | 'clock' | 'ids' | 'grantIssuer' | 'runtimeSessions'
>;

/**
 * Records the operator's claim and starts reconciliation. The authorization goes back to processing (never
 * straight to waiting_on_payer or completed); only the reconciliation job projects payer truth onto it.
 */
export class CompleteManualHandoffUseCase {
  constructor(private readonly deps: CompleteManualHandoffDeps) {}

  async execute(
    scope: TenantScope,
    command: CompleteManualHandoffCommand,
  ): Promise<ManualHandoffWithAuthorization> {
    const result = await this.deps.unitOfWork.run(scope, async (tx) => {
      const handoff = await loadManualHandoff(tx, command.authorizationId, command.manualHandoffId);
      handoff.assertVersion(command.expectedVersion);
      const authorization = await loadAuthorization(tx, command.authorizationId);
      const now = this.deps.clock.now();
      handoff.complete(
        {
          reportedOutcome: command.reportedOutcome,
          observedReferenceNumber: command.observedReferenceNumber,
          operatorNotes: command.operatorNotes,
        },
        plainContext(this.deps, now),
      );
      if (authorization.nextAction?.id === handoff.interactionActionId) {
        authorization.resumeAfterManualInteraction(authorizationContext(this.deps, now));
        await saveAuthorization(tx, this.deps.ids, authorization);
      }
      // The operator is done: interactive access ends with the claim.
      await this.deps.grantIssuer.revokeForSubject(handoff.id);
      await saveManualHandoff(tx, this.deps.ids, handoff);
      await tx.jobs.enqueue({
        type: WORKER_JOB_TYPES.reconcileHandoff,
        authorizationId: authorization.id,
        payload: { manualHandoffId: handoff.id, attempt: 1 },
      });
      return { handoff, authorization };
    });
    await releaseSessionsQuietly(this.deps.runtimeSessions, [result.handoff.runtimeSessionId]);
    return result;
  }
}
