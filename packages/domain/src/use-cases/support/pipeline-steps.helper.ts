import { type Authorization } from '../../authorization/authorization.aggregate';
import { type AuthorizationContext, type PayerReceipt } from '../../authorization/authorization.types';
import { type DomainPorts } from '../../ports';
import { isPayerPortalError, type PortalCase } from '../../ports/payer-portal.port';
import { type TransactionalPorts } from '../../ports/unit-of-work.port';
import { type TenantScope } from '../../shared/scope';
import { saveAuthorization } from './aggregate-persistence.helper';
import { authorizationContext } from './authorization-context.factory';
import { buildPortalCase, submissionIdempotencyKey } from './portal-case.factory';
import { type PipelineSettings, pipelineSettings, WORKER_JOB_TYPES } from './worker-jobs';

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

export type PipelineDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'payerPortal'> & {
  settings?: Partial<PipelineSettings>;
};

/**
 * The building blocks the worker's use cases share. Each write re-reads the authorization in its own
 * transaction and applies the change only if the guard still holds, so a slow portal call never overwrites
 * a change (a cancel, another job) that happened meanwhile.
 */
export class PipelineSteps {
  readonly settings: PipelineSettings;

  constructor(private readonly deps: PipelineDeps) {
    this.settings = pipelineSettings(deps.settings);
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
        if (found !== null) return await this.recordReceipt(scope, snapshot, found);
      }
      const result = await this.deps.payerPortal.submit(snapshot.portalCase, { idempotencyKey });
      if ('receipt' in result) return await this.recordReceipt(scope, snapshot, result.receipt);
      const written = await this.write(
        scope,
        snapshot.authorization.id,
        this.unchangedSince(snapshot),
        (a, ctx) => a.requireManualInteraction(result.needsHuman, ctx),
      );
      return written === null ? 'superseded' : 'manual_interaction_required';
    } catch (error) {
      return this.failOnPermanentError(scope, snapshot, error);
    }
  }

  /**
   * Payer truth wins over version checks: a receipt is recorded whatever else changed, as long as the case
   * is still processing the same boundary crossing.
   */
  async recordReceipt(
    scope: TenantScope,
    snapshot: StepSnapshot,
    receipt: PayerReceipt,
  ): Promise<PipelineOutcome> {
    const key = submissionIdempotencyKey(snapshot.authorization);
    const written = await this.write(
      scope,
      snapshot.authorization.id,
      (a) => a.status === 'processing' && submissionIdempotencyKey(a) === key,
      async (a, ctx, tx) => {
        a.recordReceipt(receipt, ctx);
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

  /** Transient portal errors go back to the worker for a retry; permanent ones fail the case. */
  async failOnPermanentError(
    scope: TenantScope,
    snapshot: StepSnapshot,
    error: unknown,
  ): Promise<PipelineOutcome> {
    if (!isPayerPortalError(error) || error.transient) throw error;
    const written = await this.write(
      scope,
      snapshot.authorization.id,
      (a) => a.status === 'processing',
      (a, ctx) => a.fail({ code: error.code, message: error.message, details: error.details }, ctx),
    );
    return written === null ? 'superseded' : 'failed';
  }
}
