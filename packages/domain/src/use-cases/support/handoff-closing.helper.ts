import { type Authorization } from '../../authorization/authorization.aggregate';
import { type ManualHandoff } from '../../manual-handoff/manual-handoff.aggregate';
import { type DomainPorts } from '../../ports';
import { type TransactionalPorts } from '../../ports/unit-of-work.port';
import { type TenantScope } from '../../shared/scope';
import { type ManualHandoffCommand } from '../complete-manual-handoff.use-case';
import { type ManualHandoffWithAuthorization } from '../create-manual-handoff.use-case';
import { loadAuthorization, loadManualHandoff } from './aggregate-loading.helper';
import { saveAuthorization, saveManualHandoff } from './aggregate-persistence.helper';
import { authorizationContext } from './authorization-context.factory';
import { releaseSessionsQuietly } from './runtime-session.helper';
import { WORKER_JOB_TYPES } from './worker-jobs';

/**
 * The tail of every close that takes access away (revoke, expire, lost interaction): grants are revoked
 * before the commit, so a failure leaves the handoff as it was; a reconciliation the close started gets its
 * job (one that was already pending, from a completed handoff, already has one).
 */
export async function saveClosedHandoff(
  deps: Pick<DomainPorts, 'ids'>,
  tx: TransactionalPorts,
  handoff: ManualHandoff,
  reconciliationPendingBefore: boolean,
): Promise<void> {
  await tx.grants.revokeForSubject(handoff.id);
  await saveManualHandoff(tx, deps.ids, handoff);
  if (!reconciliationPendingBefore && handoff.reconciliation?.state === 'pending') {
    await tx.jobs.enqueue({
      type: WORKER_JOB_TYPES.reconcileHandoff,
      authorizationId: handoff.authorizationId,
      payload: { manualHandoffId: handoff.id, attempt: 1 },
    });
  }
}

type OperatorCloseDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'runtimeSessions'>;

/**
 * What the operator's two outcomes (complete, unable to complete) share, in one transaction: the handoff at the
 * expected version is closed by `close`; the authorization resumes when it still waits on this interaction;
 * grants are revoked before the handoff is saved; after the commit the runtime sessions are released.
 * `resumed` and `closed` add each outcome's jobs.
 */
export async function closeByOperator(
  deps: OperatorCloseDeps,
  scope: TenantScope,
  command: ManualHandoffCommand,
  steps: {
    close(handoff: ManualHandoff, now: Date): void;
    resumed?(tx: TransactionalPorts, authorization: Authorization): Promise<void>;
    closed?(tx: TransactionalPorts, handoff: ManualHandoff, authorization: Authorization): Promise<void>;
  },
): Promise<ManualHandoffWithAuthorization> {
  const result = await deps.unitOfWork.run(scope, async (tx) => {
    const handoff = await loadManualHandoff(tx, command.authorizationId, command.manualHandoffId);
    handoff.assertVersion(command.expectedVersion);
    const authorization = await loadAuthorization(tx, command.authorizationId);
    const now = deps.clock.now();
    steps.close(handoff, now);
    if (authorization.nextAction?.id === handoff.interactionActionId) {
      authorization.resumeAfterManualInteraction(authorizationContext(deps, now));
      await saveAuthorization(tx, deps.ids, authorization);
      await steps.resumed?.(tx, authorization);
    }
    await tx.grants.revokeForSubject(handoff.id);
    await saveManualHandoff(tx, deps.ids, handoff);
    await steps.closed?.(tx, handoff, authorization);
    return { handoff, authorization };
  });
  await releaseSessionsQuietly(deps.runtimeSessions, [result.handoff.runtimeSessionId]);
  return result;
}
