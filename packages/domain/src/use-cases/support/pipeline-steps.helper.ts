import { type Authorization } from '../../authorization/authorization.aggregate';
import { type AuthorizationContext, type PayerReceipt } from '../../authorization/authorization.types';
import { type DomainPorts } from '../../ports';
import { isPayerPortalError, type PortalCase } from '../../ports/payer-portal.port';
import { type TransactionalPorts } from '../../ports/unit-of-work.port';
import { signInNeedsHuman } from '../../portal-access/portal-sign-in';
import { type TenantScope } from '../../shared/scope';
import { saveAuthorization } from './aggregate-persistence.helper';
import { authorizationContext } from './authorization-context.factory';
import { NO_EVIDENCE, PayerEvidence, type StoredEvidence } from './payer-evidence.helper';
import { buildPortalCase, submissionIdempotencyKey } from './portal-case.factory';
import { type PipelineSettings, pipelineSettings, WORKER_JOB_TYPES } from './worker-jobs';

/** The receipt naming the confirmation page's file (`details.confirmationFileId`), when one was captured. */
export const withConfirmation = (receipt: PayerReceipt, evidence: StoredEvidence): PayerReceipt =>
  evidence.confirmationFileId === null
    ? receipt
    : { ...receipt, details: { ...receipt.details, confirmationFileId: evidence.confirmationFileId } };

/** What one worker step did; the worker logs it and acks the job. */
export type PipelineOutcome =
  /** Nothing to do: the case is not in the state this step acts on, or a manual handoff owns it. */
  | 'skipped'
  /** Someone else changed the case while the portal was being asked; their change carries its own follow-up. */
  | 'superseded'
  | 'requirements_revealed'
  | 'awaiting_final_approval'
  | 'receipt_recorded'
  | 'manual_interaction_required'
  | 'failed'
  | 'decision_pending'
  | 'decision_recorded'
  | 'more_information_requested';

/** What a step read in its first short transaction; portal calls happen outside any transaction. */
export interface StepSnapshot {
  authorization: Authorization;
  portalCase: PortalCase;
}

/** `blobStore` keeps what the portal captured (payer evidence, decision 0020). */
export type PipelineDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'payerPortal' | 'blobStore'> & {
  settings?: Partial<PipelineSettings>;
};

/**
 * The building blocks the worker's use cases share. Each write re-reads the authorization in its own
 * transaction and applies the change only if the guard still holds, so a slow portal call never overwrites
 * a change (a cancel, another job) that happened meanwhile.
 */
export class PipelineSteps {
  readonly settings: PipelineSettings;
  readonly evidence: PayerEvidence;

  constructor(private readonly deps: PipelineDeps) {
    this.settings = pipelineSettings(deps.settings);
    this.evidence = new PayerEvidence(deps);
  }

  /** Null when the guard fails or a manual handoff owns the case (automation stays out of its lineage). */
  read(
    scope: TenantScope,
    authorizationId: string,
    guard: (authorization: Authorization) => boolean,
  ): Promise<StepSnapshot | null> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await tx.authorizations.findById(authorizationId);
      if (authorization === null || !guard(authorization)) return null;
      const handoffs = await tx.manualHandoffs.listByAuthorization(authorizationId);
      if (handoffs.some((handoff) => handoff.ownsInteraction)) return null;
      return { authorization, portalCase: await buildPortalCase(tx, authorization) };
    });
  }

  /** Applies `change` when `guard` holds on the freshly read authorization; null otherwise. */
  write(
    scope: TenantScope,
    authorizationId: string,
    guard: (authorization: Authorization) => boolean,
    change: (
      authorization: Authorization,
      ctx: AuthorizationContext,
      tx: TransactionalPorts,
    ) => Promise<void> | void,
  ): Promise<Authorization | null> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await tx.authorizations.findById(authorizationId);
      if (authorization === null || !guard(authorization)) return null;
      await change(authorization, authorizationContext(this.deps), tx);
      await saveAuthorization(tx, this.deps.ids, authorization);
      return authorization;
    });
  }

  /** Guard: exactly the version the step read, still processing. */
  unchangedSince(snapshot: StepSnapshot): (authorization: Authorization) => boolean {
    return (authorization) =>
      authorization.version === snapshot.authorization.version && authorization.status === 'processing';
  }

  /**
   * Submits a case whose final boundary is crossed. `reconcileFirst` asks the payer before submitting, for
   * when an earlier attempt may have reached the payer (a crash, a retried job, a human at the portal).
   */
  async submitAfterBoundary(
    scope: TenantScope,
    snapshot: StepSnapshot,
    options: { reconcileFirst: boolean },
  ): Promise<PipelineOutcome> {
    const idempotencyKey = submissionIdempotencyKey(snapshot.authorization);
    try {
      if (options.reconcileFirst) {
        const found = await this.deps.payerPortal.findSubmission(snapshot.portalCase, { idempotencyKey });
        if (found !== null) {
          // As for a submit: the found request's page is stored first, then linked by the receipt.
          const evidence = await this.evidence.storeBlobs(scope, snapshot.authorization.id, found.evidence);
          return await this.recordReceipt(scope, snapshot, found.receipt, evidence);
        }
      }
      const result = await this.deps.payerPortal.submit(snapshot.portalCase, { idempotencyKey });
      // The bytes first, outside the transaction; an error here retries the job, whose reconciliation
      // finds the submission rather than making another.
      const evidence = await this.evidence.storeBlobs(scope, snapshot.authorization.id, result.evidence);
      if ('receipt' in result) return await this.recordReceipt(scope, snapshot, result.receipt, evidence);
      const written = await this.write(
        scope,
        snapshot.authorization.id,
        this.unchangedSince(snapshot),
        async (a, ctx, tx) => {
          a.requireManualInteraction(result.needsHuman, ctx);
          await this.evidence.record(tx, evidence);
        },
      );
      return written === null ? 'superseded' : 'manual_interaction_required';
    } catch (error) {
      return this.failOnPermanentError(scope, snapshot, error);
    }
  }

  /**
   * Payer truth wins over version checks: a receipt is recorded whatever else changed, as long as the case
   * is still processing the same boundary crossing. Stored evidence is recorded with it, the receipt naming
   * the confirmation page's file (`details.confirmationFileId`).
   */
  async recordReceipt(
    scope: TenantScope,
    snapshot: StepSnapshot,
    found: PayerReceipt,
    evidence: StoredEvidence = NO_EVIDENCE,
  ): Promise<PipelineOutcome> {
    const receipt = withConfirmation(found, evidence);
    const key = submissionIdempotencyKey(snapshot.authorization);
    const written = await this.write(
      scope,
      snapshot.authorization.id,
      (a) => a.status === 'processing' && submissionIdempotencyKey(a) === key,
      async (a, ctx, tx) => {
        a.recordReceipt(receipt, ctx);
        await this.evidence.record(tx, evidence);
        await this.schedulePoll(tx, a.id, ctx.now);
      },
    );
    return written === null ? 'superseded' : 'receipt_recorded';
  }

  schedulePoll(tx: TransactionalPorts, authorizationId: string, now: Date): Promise<void> {
    return tx.jobs.enqueue({
      type: WORKER_JOB_TYPES.pollDecision,
      authorizationId,
      runAt: new Date(now.getTime() + this.settings.decisionPollIntervalMs),
    });
  }

  /**
   * Transient portal errors go back to the worker for a retry; permanent ones fail the case, except sign-in
   * failures a person can get past, which wait for a manual handoff (decision 0021).
   */
  async failOnPermanentError(
    scope: TenantScope,
    snapshot: StepSnapshot,
    error: unknown,
  ): Promise<PipelineOutcome> {
    if (!isPayerPortalError(error) || error.transient) throw error;
    if (signInNeedsHuman(error.code, snapshot.authorization.finalBoundaryCrossedAt !== null)) {
      const handed = await this.write(
        scope,
        snapshot.authorization.id,
        (a) => a.status === 'processing',
        (a, ctx) => a.requireManualInteraction({ reason: error.code, description: error.message }, ctx),
      );
      return handed === null ? 'superseded' : 'manual_interaction_required';
    }
    const written = await this.write(
      scope,
      snapshot.authorization.id,
      (a) => a.status === 'processing',
      (a, ctx) => a.fail({ code: error.code, message: error.message, details: error.details }, ctx),
    );
    return written === null ? 'superseded' : 'failed';
  }
}
