import {
  AbandonProcessingUseCase,
  ExpireManualHandoffUseCase,
  PayerPortalError,
  PollDecisionUseCase,
  ProcessAuthorizationUseCase,
  ReconcileAuthorizationUseCase,
  ReconcileManualHandoffUseCase,
  WORKER_JOB_TYPES,
  type Clock,
  type DecisionPoll,
  type Environment,
  type GrantIssuer,
  type IdGenerator,
  type PayerPortal,
  type PayerReceipt,
  type PipelineSettings,
  type PortalDiscovery,
  type PortalValidation,
  type PreparedSubmission,
  type RuntimeSessions,
  type SubmitResult,
  type UnitOfWork,
  type WorkerJobType,
} from '@prior-auth/domain';
import { type ClaimedJob } from '@prior-auth/persistence-postgres';
import { PermanentJobError } from './retry-policy';

export interface JobResult {
  /** What the use case did (`receipt_recorded`, `skipped`, …), for logs. */
  outcome: string;
  /** The step may have enqueued a job that is already due: wake the other workers. */
  enqueuedDueWork: boolean;
}

export type JobHandler = (job: ClaimedJob) => Promise<JobResult>;
export type JobHandlers = Readonly<Record<string, JobHandler>>;

export type GiveUpHandlerDependencies = Pick<
  JobHandlerDependencies,
  'unitOfWork' | 'clock' | 'ids' | 'pipelineSettings'
>;

/** A job the worker gives up, and what its give-up consequence may use. */
export interface GiveUp {
  /**
   * `permanent_failure`: the job can never succeed as it is; `attempts_exhausted`: its final attempt failed;
   * `lease_expired_on_final_attempt`: the worker running its final attempt vanished.
   */
  reason: 'permanent_failure' | 'attempts_exhausted' | 'lease_expired_on_final_attempt';
  now: Date;
  /** When follow-up work is due: the backoff another attempt would have had. */
  retryAt: Date;
}

/**
 * What giving up a job does to its case, run in the transaction that records the give-up (both commit or
 * neither). Returns what it did, for logs.
 */
export type GiveUpHandler = (job: ClaimedJob, giveUp: GiveUp) => Promise<string>;
export type GiveUpHandlers = Readonly<Record<string, GiveUpHandler>>;

export interface JobHandlerDependencies {
  unitOfWork: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
  /**
   * The payer portal of each environment. An environment without one gets an adapter that refuses every call
   * permanently with `payer_portal_unavailable` (see UnavailablePayerPortal).
   */
  portals: Partial<Record<Environment, PayerPortal>>;
  /** Pipeline timing per environment (the sandbox decides within seconds; production polls every minute). */
  pipelineSettings?: Partial<Record<Environment, Partial<PipelineSettings>>>;
  grantIssuer: GrantIssuer;
  runtimeSessions: RuntimeSessions;
}

/**
 * Production has no payer portal adapter yet. Rather than let a production case reach the sandbox's simulated
 * payer, every call fails permanently: the process step completes the case as `failed` with this code, and
 * jobs that cannot fail a case (decision polls, handoff reconciliation) are given up with it.
 */
export class UnavailablePayerPortal implements PayerPortal {
  constructor(private readonly environment: Environment) {}

  discover(): Promise<PortalDiscovery> {
    return this.refuse();
  }
  validate(): Promise<PortalValidation> {
    return this.refuse();
  }
  prepareSubmission(): Promise<PreparedSubmission> {
    return this.refuse();
  }
  submit(): Promise<SubmitResult> {
    return this.refuse();
  }
  findSubmission(): Promise<PayerReceipt | null> {
    return this.refuse();
  }
  pollDecision(): Promise<DecisionPoll> {
    return this.refuse();
  }

  private refuse(): Promise<never> {
    return Promise.reject(
      new PayerPortalError(
        'payer_portal_unavailable',
        `No payer portal is available for the ${this.environment} environment.`,
        { transient: false },
      ),
    );
  }
}

interface EnvironmentPipeline {
  process: ProcessAuthorizationUseCase;
  reconcile: ReconcileAuthorizationUseCase;
  pollDecision: PollDecisionUseCase;
  reconcileHandoff: ReconcileManualHandoffUseCase;
  expireHandoff: ExpireManualHandoffUseCase;
  /** Decision polls are due at once (a sandbox without decision delay). */
  pollsDueAtOnce: boolean;
}

function pipelineFor(deps: JobHandlerDependencies, environment: Environment): EnvironmentPipeline {
  const settings = deps.pipelineSettings?.[environment] ?? {};
  const ports = {
    unitOfWork: deps.unitOfWork,
    clock: deps.clock,
    ids: deps.ids,
    payerPortal: deps.portals[environment] ?? new UnavailablePayerPortal(environment),
    settings,
  };
  return {
    process: new ProcessAuthorizationUseCase(ports),
    reconcile: new ReconcileAuthorizationUseCase(ports),
    pollDecision: new PollDecisionUseCase(ports),
    reconcileHandoff: new ReconcileManualHandoffUseCase(ports),
    expireHandoff: new ExpireManualHandoffUseCase({
      unitOfWork: deps.unitOfWork,
      clock: deps.clock,
      ids: deps.ids,
      grantIssuer: deps.grantIssuer,
      runtimeSessions: deps.runtimeSessions,
    }),
    pollsDueAtOnce: (settings.decisionPollIntervalMs ?? 1) <= 0,
  };
}

function manualHandoffIdOf(job: ClaimedJob): string {
  const id = job.payload.manualHandoffId;
  if (typeof id !== 'string' || id === '') {
    throw new PermanentJobError('invalid_job_payload', `Job ${job.id} (${job.type}) has no manualHandoffId.`);
  }
  return id;
}

function attemptOf(job: ClaimedJob): number {
  const attempt = job.payload.attempt ?? 1;
  if (typeof attempt !== 'number' || !Number.isInteger(attempt) || attempt < 1) {
    throw new PermanentJobError('invalid_job_payload', `Job ${job.id} (${job.type}) has an invalid attempt.`);
  }
  return attempt;
}

function pipelinesFor(deps: JobHandlerDependencies): (job: ClaimedJob) => EnvironmentPipeline {
  const pipelines: Record<Environment, EnvironmentPipeline> = {
    sandbox: pipelineFor(deps, 'sandbox'),
    production: pipelineFor(deps, 'production'),
  };
  return (job) => {
    const pipeline = pipelines[job.scope.environment];
    if (pipeline === undefined) {
      throw new PermanentJobError('invalid_job_scope', `Job ${job.id} names an unknown environment.`);
    }
    return pipeline;
  };
}

const command = (job: ClaimedJob) => ({ authorizationId: job.authorizationId });

/** One handler per job type the domain enqueues (WORKER_JOB_TYPES), each running its use case. */
export function createJobHandlers(deps: JobHandlerDependencies): JobHandlers {
  const pipelineOf = pipelinesFor(deps);

  const handlers: Record<WorkerJobType, JobHandler> = {
    [WORKER_JOB_TYPES.process]: async (job) => {
      const pipeline = pipelineOf(job);
      const outcome = await pipeline.process.execute(job.scope, command(job));
      return { outcome, enqueuedDueWork: outcome === 'receipt_recorded' && pipeline.pollsDueAtOnce };
    },
    [WORKER_JOB_TYPES.reconcile]: async (job) => {
      const pipeline = pipelineOf(job);
      const outcome = await pipeline.reconcile.execute(job.scope, command(job));
      return { outcome, enqueuedDueWork: outcome === 'receipt_recorded' && pipeline.pollsDueAtOnce };
    },
    [WORKER_JOB_TYPES.pollDecision]: async (job) => {
      const pipeline = pipelineOf(job);
      const outcome = await pipeline.pollDecision.execute(job.scope, command(job));
      return { outcome, enqueuedDueWork: outcome === 'decision_pending' && pipeline.pollsDueAtOnce };
    },
    [WORKER_JOB_TYPES.reconcileHandoff]: async (job) => {
      const outcome = await pipelineOf(job).reconcileHandoff.execute(job.scope, {
        ...command(job),
        manualHandoffId: manualHandoffIdOf(job),
        attempt: attemptOf(job),
      });
      // A confirmed receipt may hand the case back to the pipeline with a process job due now.
      return { outcome, enqueuedDueWork: outcome === 'confirmed' };
    },
    [WORKER_JOB_TYPES.expireHandoff]: async (job) => {
      const outcome = await pipelineOf(job).expireHandoff.execute(job.scope, {
        ...command(job),
        manualHandoffId: manualHandoffIdOf(job),
      });
      // Expiring a handoff whose operator had access starts a reconciliation, due now.
      return { outcome, enqueuedDueWork: outcome === 'expired' };
    },
  };
  return handlers;
}

/**
 * What giving up each job type does to its case. A job never just stops while its case still needs it:
 * - `process` before the final boundary: nothing reached the payer, so the case fails as on a permanent
 *   payer refusal (`processing_retries_exhausted`). After the boundary a submission may exist, so a
 *   `reconcile` job is scheduled instead (it asks the payer before submitting).
 * - `reconcile`, `poll_decision`, `reconcile_handoff`, `expire_manual_handoff`: the payer may hold the case
 *   (or a handoff is open), so failing it is never right; the same work is scheduled again at `retryAt`.
 *   Not after a permanent failure, which would only repeat.
 * Each re-reads the case and does nothing once it has moved on.
 */
export function createGiveUpHandlers(deps: GiveUpHandlerDependencies): GiveUpHandlers {
  const abandon = new AbandonProcessingUseCase(deps);
  const findCase = (job: ClaimedJob) =>
    deps.unitOfWork.run(job.scope, (tx) => tx.authorizations.findById(job.authorizationId));
  const findHandoff = (job: ClaimedJob) => {
    const manualHandoffId = manualHandoffIdOf(job);
    return deps.unitOfWork.run(job.scope, (tx) => tx.manualHandoffs.findById(manualHandoffId));
  };
  const schedule = async (job: ClaimedJob, giveUp: GiveUp, type: WorkerJobType): Promise<string> => {
    await deps.unitOfWork.run(job.scope, (tx) =>
      tx.jobs.enqueue({
        type,
        authorizationId: job.authorizationId,
        runAt: giveUp.retryAt,
        ...(type === job.type ? { payload: job.payload } : {}),
      }),
    );
    return `${type}_scheduled`;
  };
  const repeatable = (giveUp: GiveUp) => giveUp.reason !== 'permanent_failure';

  const handlers: Record<WorkerJobType, GiveUpHandler> = {
    [WORKER_JOB_TYPES.process]: async (job, giveUp) => {
      const authorization = await findCase(job);
      if (authorization?.status !== 'processing') return 'none';
      if (authorization.finalBoundaryCrossedAt !== null) {
        return repeatable(giveUp) ? schedule(job, giveUp, WORKER_JOB_TYPES.reconcile) : 'none';
      }
      // Guarded again inside its own write: should the boundary be crossed meanwhile, nothing is failed.
      const outcome = await abandon.execute(job.scope, { ...command(job), reason: giveUp.reason });
      return outcome === 'failed' ? 'case_failed' : outcome;
    },
    [WORKER_JOB_TYPES.reconcile]: async (job, giveUp) => {
      const authorization = await findCase(job);
      if (authorization?.status !== 'processing' || authorization.finalBoundaryCrossedAt === null)
        return 'none';
      return repeatable(giveUp) ? schedule(job, giveUp, WORKER_JOB_TYPES.reconcile) : 'none';
    },
    [WORKER_JOB_TYPES.pollDecision]: async (job, giveUp) => {
      if (!repeatable(giveUp) || (await findCase(job))?.status !== 'waiting_on_payer') return 'none';
      return schedule(job, giveUp, WORKER_JOB_TYPES.pollDecision);
    },
    [WORKER_JOB_TYPES.reconcileHandoff]: async (job, giveUp) => {
      if (!repeatable(giveUp) || (await findHandoff(job))?.reconciliation?.state !== 'pending') return 'none';
      return schedule(job, giveUp, WORKER_JOB_TYPES.reconcileHandoff);
    },
    [WORKER_JOB_TYPES.expireHandoff]: async (job, giveUp) => {
      if (!repeatable(giveUp)) return 'none';
      const state = (await findHandoff(job))?.currentState;
      if (state !== 'offered' && state !== 'active') return 'none';
      return schedule(job, giveUp, WORKER_JOB_TYPES.expireHandoff);
    },
  };
  return handlers;
}
