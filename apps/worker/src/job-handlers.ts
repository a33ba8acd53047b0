import {
  ExpireManualHandoffUseCase,
  MarkDecisionOverdueUseCase,
  PayerPortalError,
  PollDecisionUseCase,
  ProcessAuthorizationUseCase,
  ReconcileAuthorizationUseCase,
  ReconcileManualHandoffUseCase,
  ResolveGivenUpJobUseCase,
  WORKER_JOB_TYPES,
  type BlobStore,
  type Clock,
  type DecisionPoll,
  type FoundSubmission,
  type Environment,
  type GiveUpReason,
  type IdGenerator,
  type PayerPortal,
  type PipelineSettings,
  type PortalDiscovery,
  type PortalValidation,
  type PreparedSubmission,
  type RuntimeSessions,
  type SubmitResult,
  type UnitOfWork,
  type WorkerJobType,
} from '@prior-auth/domain';
import { PermanentJobError } from './retry-policy';
import { type WorkerJob } from './worker';

export interface JobResult {
  /** What the use case did (`receipt_recorded`, `skipped`, …), for logs. */
  outcome: string;
}

export type JobHandler = (job: WorkerJob) => Promise<JobResult>;
export type JobHandlers = Readonly<Record<string, JobHandler>>;

export type GiveUpHandlerDependencies = Pick<
  JobHandlerDependencies,
  'unitOfWork' | 'clock' | 'ids' | 'pipelineSettings'
>;

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
  runtimeSessions: RuntimeSessions;
  /** Where what the portals captured is kept as `payer_evidence` files (decision 0020). */
  blobStore: BlobStore;
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
  findSubmission(): Promise<FoundSubmission | null> {
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
}

function pipelineFor(deps: JobHandlerDependencies, environment: Environment): EnvironmentPipeline {
  const settings = deps.pipelineSettings?.[environment] ?? {};
  const ports = {
    unitOfWork: deps.unitOfWork,
    clock: deps.clock,
    ids: deps.ids,
    payerPortal: deps.portals[environment] ?? new UnavailablePayerPortal(environment),
    blobStore: deps.blobStore,
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
      runtimeSessions: deps.runtimeSessions,
    }),
  };
}

function manualHandoffIdOf(job: WorkerJob): string {
  const id = job.payload.manualHandoffId;
  if (typeof id !== 'string' || id === '') {
    throw new PermanentJobError('invalid_job_payload', `Job ${job.id} (${job.type}) has no manualHandoffId.`);
  }
  return id;
}

function decisionDueAtOf(job: WorkerJob): string {
  const due = job.payload.decisionDueAt;
  if (typeof due !== 'string' || due === '') {
    throw new PermanentJobError('invalid_job_payload', `Job ${job.id} (${job.type}) has no decisionDueAt.`);
  }
  return due;
}

function attemptOf(job: WorkerJob): number {
  const attempt = job.payload.attempt ?? 1;
  if (typeof attempt !== 'number' || !Number.isInteger(attempt) || attempt < 1) {
    throw new PermanentJobError('invalid_job_payload', `Job ${job.id} (${job.type}) has an invalid attempt.`);
  }
  return attempt;
}

function pipelinesFor(deps: JobHandlerDependencies): (job: WorkerJob) => EnvironmentPipeline {
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

const command = (job: WorkerJob) => ({ authorizationId: job.authorizationId });

/** One handler per job type the domain enqueues (WORKER_JOB_TYPES), each running its use case. */
export function createJobHandlers(deps: JobHandlerDependencies): JobHandlers {
  const pipelineOf = pipelinesFor(deps);
  const markOverdue = new MarkDecisionOverdueUseCase(deps);

  const handlers: Record<WorkerJobType, JobHandler> = {
    [WORKER_JOB_TYPES.process]: async (job) => {
      const pipeline = pipelineOf(job);
      const outcome = await pipeline.process.execute(job.scope, command(job));
      return { outcome };
    },
    [WORKER_JOB_TYPES.reconcile]: async (job) => {
      const pipeline = pipelineOf(job);
      const outcome = await pipeline.reconcile.execute(job.scope, command(job));
      return { outcome };
    },
    [WORKER_JOB_TYPES.pollDecision]: async (job) => {
      const pipeline = pipelineOf(job);
      const outcome = await pipeline.pollDecision.execute(job.scope, command(job));
      return { outcome };
    },
    [WORKER_JOB_TYPES.reconcileHandoff]: async (job) => {
      const outcome = await pipelineOf(job).reconcileHandoff.execute(job.scope, {
        ...command(job),
        manualHandoffId: manualHandoffIdOf(job),
        attempt: attemptOf(job),
      });
      return { outcome };
    },
    [WORKER_JOB_TYPES.expireHandoff]: async (job) => {
      const outcome = await pipelineOf(job).expireHandoff.execute(job.scope, {
        ...command(job),
        manualHandoffId: manualHandoffIdOf(job),
      });
      return { outcome };
    },
    [WORKER_JOB_TYPES.decisionOverdue]: async (job) => {
      const outcome = await markOverdue.execute(job.scope, {
        ...command(job),
        decisionDueAt: decisionDueAtOf(job),
      });
      return { outcome };
    },
  };
  return handlers;
}

/** A job pg-boss gave up on (from its dead-letter queue), with why. */
export interface GivenUpJob extends WorkerJob {
  reason: GiveUpReason;
  /** The last attempt's error, for logs. */
  error: string;
}

/**
 * Routes a given-up job to the domain's decision (ResolveGivenUpJobUseCase) with the pipeline settings of
 * its environment; the worker decides nothing itself.
 */
export function createGiveUpRouter(deps: GiveUpHandlerDependencies): (job: GivenUpJob) => Promise<string> {
  const useCases: Record<Environment, ResolveGivenUpJobUseCase> = {
    sandbox: new ResolveGivenUpJobUseCase({ ...deps, settings: deps.pipelineSettings?.sandbox ?? {} }),
    production: new ResolveGivenUpJobUseCase({ ...deps, settings: deps.pipelineSettings?.production ?? {} }),
  };
  return (job) =>
    useCases[job.scope.environment].execute(job.scope, {
      jobType: job.type,
      authorizationId: job.authorizationId,
      payload: job.payload,
      reason: job.reason,
    });
}
