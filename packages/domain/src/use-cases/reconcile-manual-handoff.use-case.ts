import { type Authorization } from '../authorization/authorization.aggregate';
import { type AuthorizationContext, type PayerReceipt } from '../authorization/authorization.types';
import { type ManualHandoff } from '../manual-handoff/manual-handoff.aggregate';
import { type TransactionalPorts } from '../ports/unit-of-work.port';
import { type TenantScope } from '../shared/scope';
import { saveAuthorization, saveManualHandoff } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';
import { NO_EVIDENCE, type StoredEvidence } from './support/payer-evidence.helper';
import { type PipelineDeps, PipelineSteps, withConfirmation } from './support/pipeline-steps.helper';
import { buildPortalCase, submissionIdempotencyKey } from './support/portal-case.factory';
import { WORKER_JOB_TYPES } from './support/worker-jobs';

export interface ReconcileManualHandoffCommand {
  authorizationId: string;
  manualHandoffId: string;
  /** 1 for the first check; the job re-enqueues itself with attempt + 1 while the payer shows nothing. */
  attempt: number;
}

export type ReconcileManualHandoffOutcome =
  | 'skipped'
  | 'confirmed'
  | 'not_found'
  | 'retry_scheduled'
  /** Before the final boundary: nothing to look up, the pipeline takes the case over again. */
  | 'pipeline_resumed';

export type ReconcileManualHandoffDeps = PipelineDeps;

/**
 * The worker's `reconcile_handoff` job: checks at the payer whether the submission an operator may have made
 * exists, looked up by the case's submission key and the reference number the operator observed.
 *
 * Found: the handoff settles `confirmed` and the receipt is recorded (waiting_on_payer, decision polling).
 * Not found after the configured attempts: the handoff settles `not_found` and the authorization claims no
 * receipt. If the handoff had handed the case back (completed by the operator), the case returns to
 * requires_action with a new complete_payer_interaction action: a human must look again, because failing the
 * case could abandon a submission the payer does hold, and re-submitting automatically could duplicate it. A
 * case still in requires_action (revoked, expired or lost handoff) stays there and may get a new handoff.
 *
 * Before the final boundary nothing the service made can be at the payer: the human got the portal past what
 * stopped the automation (the customer's own sign-in, an unlocked account; decision 0039), so the payer is not
 * asked and the handoff settles `not_found` at once; a case the handoff handed back goes on in the pipeline.
 */
export class ReconcileManualHandoffUseCase {
  private readonly steps: PipelineSteps;

  constructor(private readonly deps: ReconcileManualHandoffDeps) {
    this.steps = new PipelineSteps(deps);
  }

  async execute(
    scope: TenantScope,
    command: ReconcileManualHandoffCommand,
  ): Promise<ReconcileManualHandoffOutcome> {
    const lookup = await this.deps.unitOfWork.run(scope, async (tx) => {
      const handoff = await tx.manualHandoffs.findById(command.manualHandoffId);
      const authorization = await tx.authorizations.findById(command.authorizationId);
      if (handoff?.reconciliation?.state !== 'pending' || authorization === null) return null;
      return {
        portalCase: await buildPortalCase(tx, authorization),
        idempotencyKey: submissionIdempotencyKey(authorization),
        referenceNumber: handoff.observedReferenceNumber,
        beforeBoundary: authorization.finalBoundaryCrossedAt === null,
      };
    });
    if (lookup === null) return 'skipped';
    if (lookup.beforeBoundary) return this.resumePipeline(scope, command);

    // Portal errors propagate: the worker retries the job as it is.
    const found = await this.deps.payerPortal.findSubmission(lookup.portalCase, {
      idempotencyKey: lookup.idempotencyKey,
      ...(lookup.referenceNumber === null ? {} : { referenceNumber: lookup.referenceNumber }),
    });
    // The bytes first, outside the transaction (decision 0020); an error here retries the job as it is.
    const evidence =
      found === null
        ? NO_EVIDENCE
        : await this.steps.evidence.storeBlobs(scope, command.authorizationId, found.evidence);
    const receipt = found === null ? null : withConfirmation(found.receipt, evidence);

    return this.deps.unitOfWork.run(scope, async (tx) => {
      const handoff = await tx.manualHandoffs.findById(command.manualHandoffId);
      const authorization = await tx.authorizations.findById(command.authorizationId);
      if (handoff?.reconciliation?.state !== 'pending' || authorization === null) return 'skipped';
      const ctx = authorizationContext(this.deps);

      if (receipt === null && command.attempt < this.steps.settings.handoffReconcileMaxAttempts) {
        await tx.jobs.enqueue({
          type: WORKER_JOB_TYPES.reconcileHandoff,
          authorizationId: authorization.id,
          runAt: new Date(ctx.now.getTime() + this.steps.settings.handoffReconcileRetryMs),
          payload: { manualHandoffId: handoff.id, attempt: command.attempt + 1 },
        });
        return 'retry_scheduled';
      }

      handoff.finishReconciliation(receipt !== null, ctx.now);
      await saveManualHandoff(tx, this.deps.ids, handoff);
      const changed =
        receipt === null
          ? this.projectNotFound(authorization, handoff, ctx)
          : await this.projectReceipt(tx, authorization, handoff, receipt, evidence, ctx);
      if (changed) await saveAuthorization(tx, this.deps.ids, authorization);
      return receipt === null ? 'not_found' : 'confirmed';
    });
  }

  private resumePipeline(
    scope: TenantScope,
    command: ReconcileManualHandoffCommand,
  ): Promise<ReconcileManualHandoffOutcome> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const handoff = await tx.manualHandoffs.findById(command.manualHandoffId);
      const authorization = await tx.authorizations.findById(command.authorizationId);
      if (handoff?.reconciliation?.state !== 'pending' || authorization === null) return 'skipped';
      handoff.finishReconciliation(false, this.deps.clock.now());
      await saveManualHandoff(tx, this.deps.ids, handoff);
      if (authorization.status !== 'processing' || handoff.result !== 'completed_reported')
        return 'not_found';
      await tx.jobs.enqueue({ type: WORKER_JOB_TYPES.process, authorizationId: authorization.id });
      return 'pipeline_resumed';
    });
  }

  /** Returns whether the authorization changed. A canceled or already settled case is left alone. */
  private async projectReceipt(
    tx: TransactionalPorts,
    authorization: Authorization,
    handoff: ManualHandoff,
    receipt: PayerReceipt,
    evidence: StoredEvidence,
    ctx: AuthorizationContext,
  ): Promise<boolean> {
    if (
      authorization.status === 'requires_action' &&
      authorization.nextAction?.id === handoff.interactionActionId
    ) {
      authorization.resumeAfterManualInteraction(ctx);
    }
    if (authorization.status !== 'processing') return false;
    if (authorization.finalBoundaryCrossedAt === null) {
      // Resumed, but there is no boundary crossing to hold the receipt against: let the pipeline take over.
      await tx.jobs.enqueue({ type: WORKER_JOB_TYPES.process, authorizationId: authorization.id });
      return true;
    }
    authorization.recordReceipt(receipt, ctx);
    await this.steps.evidence.record(tx, evidence);
    await this.steps.schedulePoll(tx, authorization.id, ctx.now);
    return true;
  }

  private projectNotFound(
    authorization: Authorization,
    handoff: ManualHandoff,
    ctx: AuthorizationContext,
  ): boolean {
    if (authorization.status !== 'processing' || handoff.result !== 'completed_reported') return false;
    authorization.requireManualInteraction(
      {
        reason: 'manual_submission_not_found',
        description:
          'The payer does not show the submission reported by the operator; check the payer portal.',
      },
      ctx,
    );
    return true;
  }
}
