import { type TenantScope } from '../shared/scope';
import { type PipelineDeps, type PipelineOutcome, PipelineSteps } from './support/pipeline-steps.helper';

export type ReconcileAuthorizationDeps = PipelineDeps;

/**
 * The worker's `reconcile` job, for recovery after a crash: a processing case whose final boundary is
 * crossed but has no receipt for it. Asks the payer first and submits only when the payer has nothing, so the
 * payer never receives the same case twice.
 */
export class ReconcileAuthorizationUseCase {
  private readonly steps: PipelineSteps;

  constructor(deps: ReconcileAuthorizationDeps) {
    this.steps = new PipelineSteps(deps);
  }

  async execute(scope: TenantScope, command: { authorizationId: string }): Promise<PipelineOutcome> {
    const snapshot = await this.steps.read(
      scope,
      command.authorizationId,
      (a) => a.status === 'processing' && a.finalBoundaryCrossedAt !== null,
    );
    if (snapshot === null) return 'skipped';
    return this.steps.submitAfterBoundary(scope, snapshot, { reconcileFirst: true });
  }
}
