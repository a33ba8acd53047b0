/** The jobs use cases enqueue for the worker; each maps to one worker-side use case. */
export const WORKER_JOB_TYPES = {
  /** ProcessAuthorizationUseCase */
  process: 'process',
  /** ReconcileAuthorizationUseCase: crash recovery after the final boundary. */
  reconcile: 'reconcile',
  /** PollDecisionUseCase */
  pollDecision: 'poll_decision',
  /** ReconcileManualHandoffUseCase; payload {manualHandoffId, attempt} */
  reconcileHandoff: 'reconcile_handoff',
  /** ExpireManualHandoffUseCase; payload {manualHandoffId} */
  expireHandoff: 'expire_manual_handoff',
  /** MarkDecisionOverdueUseCase: runs at `decisionDueAt` (docs/decisions/0031-events-and-webhooks.md). */
  decisionOverdue: 'decision_overdue',
} as const;

export type WorkerJobType = (typeof WORKER_JOB_TYPES)[keyof typeof WORKER_JOB_TYPES];

/** Timing of the worker pipeline; the composition root overrides it (the sandbox decides within seconds). */
export interface PipelineSettings {
  /** Delay between two decision polls while the payer has not decided. */
  decisionPollIntervalMs: number;
  /** Delay before re-checking the payer for a submission a handoff operator reported but the payer did not show. */
  handoffReconcileRetryMs: number;
  /** Checks before a handoff reconciliation settles as not_found. */
  handoffReconcileMaxAttempts: number;
  /** Delay before work the worker gave up on is scheduled again while its case still needs it. */
  givenUpRetryMs: number;
}

export const DEFAULT_PIPELINE_SETTINGS: PipelineSettings = {
  decisionPollIntervalMs: 60_000,
  handoffReconcileRetryMs: 60_000,
  handoffReconcileMaxAttempts: 3,
  // The longest backoff between two attempts (decision 0016): giving up never retries faster than retrying.
  givenUpRetryMs: 5 * 60_000,
};

export const pipelineSettings = (overrides: Partial<PipelineSettings> | undefined): PipelineSettings => ({
  ...DEFAULT_PIPELINE_SETTINGS,
  ...overrides,
});
