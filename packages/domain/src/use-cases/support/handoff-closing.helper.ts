import { type ManualHandoff } from '../../manual-handoff/manual-handoff.aggregate';
import { type DomainPorts } from '../../ports';
import { type TransactionalPorts } from '../../ports/unit-of-work.port';
import { saveManualHandoff } from './aggregate-persistence.helper';
import { WORKER_JOB_TYPES } from './worker-jobs';

/**
 * The tail of every close that takes access away (revoke, expire, lost interaction): grants are revoked
 * before the commit, so a failure leaves the handoff as it was; a reconciliation the close started gets its
 * job (one that was already pending, from a completed handoff, already has one).
 */
export async function saveClosedHandoff(
  deps: Pick<DomainPorts, 'ids' | 'grantIssuer'>,
  tx: TransactionalPorts,
  handoff: ManualHandoff,
  reconciliationPendingBefore: boolean,
): Promise<void> {
  await deps.grantIssuer.revokeForSubject(handoff.id);
  await saveManualHandoff(tx, deps.ids, handoff);
  if (!reconciliationPendingBefore && handoff.reconciliation?.state === 'pending') {
    await tx.jobs.enqueue({
      type: WORKER_JOB_TYPES.reconcileHandoff,
      authorizationId: handoff.authorizationId,
      payload: { manualHandoffId: handoff.id, attempt: 1 },
    });
  }
}
