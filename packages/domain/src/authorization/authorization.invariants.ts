import type { AuthorizationState } from './authorization.types';

const hasBlockers = (state: AuthorizationState): boolean =>
  state.requirements.questions.length +
    state.requirements.documents.length +
    state.requirements.issues.length >
  0;

/**
 * The rules every persisted authorization satisfies. Returns human-readable violations (empty when the state
 * is consistent); the aggregate checks them after each mutation so a bug fails loudly instead of being saved.
 */
export const authorizationInvariantViolations = (state: AuthorizationState): string[] => {
  const v: string[] = [];
  const { status, nextAction } = state;
  const snapshot = state.submission.reviewSnapshot;

  if ((status === 'completed') !== (state.outcome !== null && state.completedAt !== null))
    v.push('completed ⇔ outcome and completedAt set');
  if (status !== 'completed' && (state.outcome !== null || state.completedAt !== null))
    v.push('outcome and completedAt only when completed');
  if ((status === 'canceled') !== (state.canceledAt !== null)) v.push('canceled ⇔ canceledAt set');
  if ((state.outcome === 'failed') !== (state.failure !== null)) v.push('outcome failed ⇔ failure recorded');
  if (
    state.outcome !== null &&
    state.outcome !== 'failed' &&
    state.submission.decision?.outcome !== state.outcome
  )
    v.push('a payer outcome matches the recorded decision');
  if ((status === 'requires_action') !== (nextAction?.type === 'complete_payer_interaction'))
    v.push('requires_action ⇔ complete_payer_interaction action');

  switch (status) {
    case 'requires_input':
      if (nextAction?.type !== 'provide_requirements') v.push('requires_input ⇒ provide_requirements action');
      if (!hasBlockers(state)) v.push('requires_input ⇒ requirements not empty');
      break;
    case 'requires_confirmation':
      if (nextAction?.type !== 'advance_case' && nextAction?.type !== 'approve_submission')
        v.push('requires_confirmation ⇒ advance_case or approve_submission action');
      if (hasBlockers(state)) v.push('requires_confirmation ⇒ requirements empty');
      break;
    case 'requires_action':
      if (nextAction?.owner !== 'operator' || nextAction.resolution?.kind !== 'manual_handoff')
        v.push('requires_action ⇒ operator action with a manual_handoff resolution');
      break;
    default:
      if (nextAction !== null) v.push(`${status} ⇒ no open next action`);
  }

  if (status === 'waiting_on_payer' && state.submission.payerReceipt === null)
    v.push('waiting_on_payer ⇒ payer receipt recorded');
  if (status === 'waiting_on_payer' && state.finalBoundaryCrossedAt === null)
    v.push('waiting_on_payer ⇒ final boundary crossed');

  if (nextAction?.type === 'approve_submission') {
    if (
      snapshot === null ||
      snapshot.id !== nextAction.reviewSnapshotId ||
      snapshot.nextActionId !== nextAction.id
    )
      v.push('approve_submission ⇒ its review snapshot is present');
    else if (snapshot.status !== 'current') v.push('approve_submission ⇒ its review snapshot is current');
  }
  if (snapshot?.status === 'current' && nextAction?.id !== snapshot.nextActionId)
    v.push('a current review snapshot belongs to the open approve_submission action');
  if (snapshot?.status === 'approved' && state.finalBoundaryCrossedAt === null)
    v.push('an approved review snapshot ⇒ final boundary crossed');

  if (nextAction !== null) {
    if (nextAction.authorizationVersion > state.version)
      v.push('next action created against a future version');
    if (nextAction.requirementsVersion > state.requirements.version)
      v.push('next action created against future requirements');
  }
  if (!Number.isInteger(state.version) || state.version < 1) v.push('version is a positive integer');
  return v;
};
