import { type DomainPorts, type TransactionalPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { saveAuthorization } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';
import {
  pipelineSettings,
  type PipelineSettings,
  WORKER_JOB_TYPES,
  type WorkerJobType,
} from './support/worker-jobs';

/** The failure a case gets when the worker gives its processing up before anything reached the payer. */
export const PROCESSING_ABANDONED_CODE = 'processing_retries_exhausted';

/**
 * Why the worker gave a job up: `permanent_failure`, it can never succeed as it is (repeating it would fail
 * the same way); `attempts_exhausted`, its attempts ran out (including a final attempt whose worker died).
 */
export type GiveUpReason = 'permanent_failure' | 'attempts_exhausted';

export interface ResolveGivenUpJobCommand {
  jobType: string;
  authorizationId: string;
  payload: Record<string, unknown>;
  reason: GiveUpReason;
}

/** What was done, for logs. */
export type GivenUpJobOutcome =
  | 'case_failed'
  | 'reconcile_scheduled'
  | 'poll_decision_scheduled'
  | 'reconcile_handoff_scheduled'
  | 'expire_manual_handoff_scheduled'
  | 'decision_overdue_scheduled'
  | 'none';

export type ResolveGivenUpJobDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids'> & {
  settings?: Partial<PipelineSettings>;
};

/**
 * What a job the worker gave up on means for its case (decision 0016). A job never just stops while its
 * case still needs it:
 * - `process` before the final boundary: nothing reached the payer, so the case completes as `failed`
 *   (`processing_retries_exhausted`). After the boundary a submission may exist, so a `reconcile` job is
 *   scheduled instead (it asks the payer before submitting); the case is never failed there.
 * - `reconcile`, `poll_decision`, `reconcile_handoff`, `expire_manual_handoff`: the payer may hold the case
 *   or a handoff is open, so the same work is scheduled again after `givenUpRetryMs` while the case or
 *   handoff still needs it.
 * A permanent failure is never scheduled again (it would only repeat). Everything is read and written in
 * one unit of work, so a case that moved on (a cancel, a decision) is left alone.
 */
export class ResolveGivenUpJobUseCase {
  private readonly settings: PipelineSettings;

  constructor(private readonly deps: ResolveGivenUpJobDeps) {
    this.settings = pipelineSettings(deps.settings);
  }

  execute(scope: TenantScope, command: ResolveGivenUpJobCommand): Promise<GivenUpJobOutcome> {
    return this.deps.unitOfWork.run(scope, (tx) => this.resolve(tx, command));
  }

  private async resolve(
    tx: TransactionalPorts,
    command: ResolveGivenUpJobCommand,
  ): Promise<GivenUpJobOutcome> {
    const repeatable = command.reason !== 'permanent_failure';
    const authorization = await tx.authorizations.findById(command.authorizationId);
    switch (command.jobType) {
      case WORKER_JOB_TYPES.process:
        if (authorization?.status !== 'processing') return 'none';
        if (authorization.finalBoundaryCrossedAt !== null) {
          return repeatable ? this.schedule(tx, command, WORKER_JOB_TYPES.reconcile) : 'none';
        }
        authorization.fail(
          {
            code: PROCESSING_ABANDONED_CODE,
            message: 'Processing stopped after repeated failures; nothing was submitted to the payer.',
            details: { reason: command.reason },
          },
          authorizationContext(this.deps),
        );
        await saveAuthorization(tx, this.deps.ids, authorization);
        return 'case_failed';
      case WORKER_JOB_TYPES.reconcile:
        if (!repeatable || authorization?.status !== 'processing') return 'none';
        if (authorization.finalBoundaryCrossedAt === null) return 'none';
        return this.schedule(tx, command, WORKER_JOB_TYPES.reconcile);
      case WORKER_JOB_TYPES.pollDecision:
        if (!repeatable || authorization?.status !== 'waiting_on_payer') return 'none';
        return this.schedule(tx, command, WORKER_JOB_TYPES.pollDecision);
      case WORKER_JOB_TYPES.reconcileHandoff: {
        const handoff = repeatable ? await this.handoffOf(tx, command) : null;
        if (handoff?.reconciliation?.state !== 'pending') return 'none';
        return this.schedule(tx, command, WORKER_JOB_TYPES.reconcileHandoff);
      }
      case WORKER_JOB_TYPES.expireHandoff: {
        const handoff = repeatable ? await this.handoffOf(tx, command) : null;
        const state = handoff?.currentState;
        if (state !== 'offered' && state !== 'active') return 'none';
        return this.schedule(tx, command, WORKER_JOB_TYPES.expireHandoff);
      }
      case WORKER_JOB_TYPES.decisionOverdue:
        // The overdue event must not be lost while the case still waits (docs/decisions/0031-events-and-webhooks.md).
        if (!repeatable || authorization?.status !== 'waiting_on_payer') return 'none';
        return this.schedule(tx, command, WORKER_JOB_TYPES.decisionOverdue);
      default:
        return 'none';
    }
  }

  /** A malformed payload names no handoff: there is nothing to resolve. */
  private handoffOf(tx: TransactionalPorts, command: ResolveGivenUpJobCommand) {
    const id = command.payload.manualHandoffId;
    return typeof id === 'string' && id !== '' ? tx.manualHandoffs.findById(id) : Promise.resolve(null);
  }

  private async schedule(
    tx: TransactionalPorts,
    command: ResolveGivenUpJobCommand,
    type: Exclude<WorkerJobType, 'process'>,
  ): Promise<GivenUpJobOutcome> {
    await tx.jobs.enqueue({
      type,
      authorizationId: command.authorizationId,
      runAt: new Date(this.deps.clock.now().getTime() + this.settings.givenUpRetryMs),
      ...(type === command.jobType ? { payload: command.payload } : {}),
    });
    return `${type}_scheduled`;
  }
}
