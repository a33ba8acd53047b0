import { decisionOverdueEvent } from '../events/resource-event';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';

export type MarkDecisionOverdueDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids'>;

export interface MarkDecisionOverdueCommand {
  authorizationId: string;
  /** The due date the job was scheduled for. */
  decisionDueAt: string;
}

export type DecisionOverdueOutcome = 'decision_overdue' | 'not_overdue';

/**
 * Runs when a case's decision falls due (the job is enqueued with the receipt; docs/decisions/
 * 0031-events-and-webhooks.md). If the case is still waiting on the payer for that same due date, the
 * `authorization.decision_overdue` event is recorded; a decided, canceled or re-received case is left alone.
 * The case itself does not change (no new version).
 */
export class MarkDecisionOverdueUseCase {
  constructor(private readonly deps: MarkDecisionOverdueDeps) {}

  execute(scope: TenantScope, command: MarkDecisionOverdueCommand): Promise<DecisionOverdueOutcome> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await tx.authorizations.findById(command.authorizationId);
      const now = this.deps.clock.now();
      const due = authorization?.decisionDueAt ?? null;
      if (
        authorization === null ||
        authorization.status !== 'waiting_on_payer' ||
        due === null ||
        due.toISOString() !== command.decisionDueAt ||
        due.getTime() > now.getTime()
      ) {
        return 'not_overdue';
      }
      await tx.events.append([
        decisionOverdueEvent((prefix) => this.deps.ids.newId(prefix), authorization, now),
      ]);
      return 'decision_overdue';
    });
  }
}
