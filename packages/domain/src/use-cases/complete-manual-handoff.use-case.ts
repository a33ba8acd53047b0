import { type CompletionReport } from '../manual-handoff/manual-handoff.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { type ManualHandoffWithAuthorization } from './create-manual-handoff.use-case';
import { plainContext } from './support/authorization-context.factory';
import { closeByOperator } from './support/handoff-closing.helper';
import { WORKER_JOB_TYPES } from './support/worker-jobs';

export interface ManualHandoffCommand {
  authorizationId: string;
  manualHandoffId: string;
  /** The manual handoff's version (its ETag). */
  expectedVersion: number;
}

export type CompleteManualHandoffCommand = ManualHandoffCommand & CompletionReport;

export type CompleteManualHandoffDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'runtimeSessions'>;

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
    return closeByOperator(this.deps, scope, command, {
      close: (handoff, now) =>
        handoff.complete(
          {
            reportedOutcome: command.reportedOutcome,
            observedReferenceNumber: command.observedReferenceNumber,
            operatorNotes: command.operatorNotes,
          },
          plainContext(this.deps, now),
        ),
      // The operator is done: interactive access ends with the claim (the helper revokes the grants).
      closed: (tx, handoff, authorization) =>
        tx.jobs.enqueue({
          type: WORKER_JOB_TYPES.reconcileHandoff,
          authorizationId: authorization.id,
          payload: { manualHandoffId: handoff.id, attempt: 1 },
        }),
    });
  }
}
