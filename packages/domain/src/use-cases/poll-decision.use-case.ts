import { type TenantScope } from '../shared/scope';
import { type PipelineDeps, type PipelineOutcome, PipelineSteps } from './support/pipeline-steps.helper';

export type PollDecisionDeps = PipelineDeps;

/**
 * The worker's `poll_decision` job while the payer has the case. Portal errors propagate to the worker's retry
 * policy: the case cannot fail here, the payer already has it.
 */
export class PollDecisionUseCase {
  private readonly steps: PipelineSteps;

  constructor(private readonly deps: PollDecisionDeps) {
    this.steps = new PipelineSteps(deps);
  }

  async execute(scope: TenantScope, command: { authorizationId: string }): Promise<PipelineOutcome> {
    const waiting = (a: { status: string }): boolean => a.status === 'waiting_on_payer';
    const snapshot = await this.steps.read(scope, command.authorizationId, waiting);
    if (snapshot === null) return 'skipped';

    const poll = await this.deps.payerPortal.pollDecision(snapshot.portalCase);
    switch (poll.state) {
      case 'pending':
        await this.deps.unitOfWork.run(scope, (tx) =>
          this.steps.schedulePoll(tx, command.authorizationId, this.deps.clock.now()),
        );
        return 'decision_pending';
      case 'decided': {
        // The letter's bytes before the transaction that links them (decision 0020).
        const evidence = await this.steps.evidence.storeBlobs(scope, command.authorizationId, poll.evidence);
        const decision =
          evidence.letterFileId === null
            ? poll.decision
            : {
                ...poll.decision,
                details: { ...poll.decision.details, letterFileId: evidence.letterFileId },
              };
        const written = await this.steps.write(
          scope,
          command.authorizationId,
          waiting,
          async (a, ctx, tx) => {
            a.recordDecision(decision, ctx);
            await this.steps.evidence.record(tx, evidence);
          },
        );
        return written === null ? 'superseded' : 'decision_recorded';
      }
      case 'more_information': {
        const written = await this.steps.write(scope, command.authorizationId, waiting, (a, ctx) =>
          a.requestMoreInformation(poll.document, ctx),
        );
        return written === null ? 'superseded' : 'more_information_requested';
      }
    }
  }
}
