import { type UnableToCompleteReason } from '../manual-handoff/manual-handoff.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { type ManualHandoffCommand } from './complete-manual-handoff.use-case';
import { type ManualHandoffWithAuthorization } from './create-manual-handoff.use-case';
import { closeByOperator } from './support/handoff-closing.helper';
import { WORKER_JOB_TYPES } from './support/worker-jobs';

export interface UnableToCompleteManualHandoffCommand extends ManualHandoffCommand {
  reason: UnableToCompleteReason;
  operatorNotes: string | null;
}

export type UnableToCompleteManualHandoffDeps = Pick<
  DomainPorts,
  'unitOfWork' | 'clock' | 'ids' | 'runtimeSessions'
>;

/**
 * The operator's explicit "could not do it". The handoff closes and the authorization returns to processing
 * (the spec's "processing projection"); the pipeline then asks the payer before anything else, since the final
 * boundary is crossed, and re-opens a payer interaction if a human is still needed.
 */
export class UnableToCompleteManualHandoffUseCase {
  constructor(private readonly deps: UnableToCompleteManualHandoffDeps) {}

  async execute(
    scope: TenantScope,
    command: UnableToCompleteManualHandoffCommand,
  ): Promise<ManualHandoffWithAuthorization> {
    return closeByOperator(this.deps, scope, command, {
      close: (handoff, now) => handoff.unableToComplete(command.reason, command.operatorNotes, now),
      resumed: (tx, authorization) =>
        tx.jobs.enqueue({ type: WORKER_JOB_TYPES.process, authorizationId: authorization.id }),
    });
  }
}
