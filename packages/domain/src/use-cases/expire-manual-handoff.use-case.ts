import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { plainContext } from './support/authorization-context.factory';
import { saveClosedHandoff } from './support/handoff-closing.helper';
import { releaseSessionsQuietly } from './support/runtime-session.helper';
import { WORKER_JOB_TYPES } from './support/worker-jobs';

export type ExpireManualHandoffOutcome = 'skipped' | 'rescheduled' | 'expired';

export type ExpireManualHandoffDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'runtimeSessions'>;

/**
 * The worker's `expire_manual_handoff` job, enqueued with the handoff for its `expiresAt`: a passive timeout,
 * distinct from the operator's unable-to-complete. Reconciliation follows when the operator had access.
 */
export class ExpireManualHandoffUseCase {
  constructor(private readonly deps: ExpireManualHandoffDeps) {}

  async execute(
    scope: TenantScope,
    command: { authorizationId: string; manualHandoffId: string },
  ): Promise<ExpireManualHandoffOutcome> {
    const result = await this.deps.unitOfWork.run(scope, async (tx) => {
      const handoff = await tx.manualHandoffs.findById(command.manualHandoffId);
      if (handoff === null || (handoff.currentState !== 'offered' && handoff.currentState !== 'active')) {
        return { outcome: 'skipped' as const, sessionId: null };
      }
      const ctx = plainContext<'mh' | 'rec'>(this.deps);
      if (ctx.now < handoff.expiresAt) {
        // Delivered early (clock skew between the queue and us): try again when it is due.
        await tx.jobs.enqueue({
          type: WORKER_JOB_TYPES.expireHandoff,
          authorizationId: handoff.authorizationId,
          runAt: handoff.expiresAt,
          payload: { manualHandoffId: handoff.id },
        });
        return { outcome: 'rescheduled' as const, sessionId: null };
      }
      handoff.expire(ctx);
      await saveClosedHandoff(this.deps, tx, handoff, false);
      return { outcome: 'expired' as const, sessionId: handoff.runtimeSessionId };
    });
    await releaseSessionsQuietly(this.deps.runtimeSessions, [result.sessionId]);
    return result.outcome;
  }
}
