import {
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

/** One handler per job type the domain enqueues (WORKER_JOB_TYPES), each running its use case. */
export function createJobHandlers(deps: JobHandlerDependencies): JobHandlers {
  const pipelines: Record<Environment, EnvironmentPipeline> = {
    sandbox: pipelineFor(deps, 'sandbox'),
    production: pipelineFor(deps, 'production'),
  };
  const pipelineOf = (job: ClaimedJob): EnvironmentPipeline => {
    const pipeline = pipelines[job.scope.environment];
    if (pipeline === undefined) {
      throw new PermanentJobError('invalid_job_scope', `Job ${job.id} names an unknown environment.`);
    }
    return pipeline;
  };
  const command = (job: ClaimedJob) => ({ authorizationId: job.authorizationId });

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
