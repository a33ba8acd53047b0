import { DomainError } from '../shared/domain-error';

export const MANUAL_HANDOFF_STATES = ['offered', 'active', 'closing', 'closed'] as const;
export type ManualHandoffStateName = (typeof MANUAL_HANDOFF_STATES)[number];

export const MANUAL_HANDOFF_RESULTS = [
  'completed_reported',
  'unable_to_complete',
  'expired',
  'revoked',
  'interaction_lost_unrecoverable',
  'canceled',
] as const;
export type ManualHandoffResult = (typeof MANUAL_HANDOFF_RESULTS)[number];

export type ManualHandoffOperation =
  | 'activate'
  | 'complete'
  | 'finishReconciliation'
  | 'unableToComplete'
  | 'revoke'
  | 'expire'
  | 'loseInteraction'
  | 'cancelForAuthorization';

export interface ManualHandoffTransition {
  from: readonly ManualHandoffStateName[];
  to: ManualHandoffStateName;
}

/**
 * The whole lifecycle in one table (the spec leaves it open: "Transitions … not shown"). A handoff only moves
 * forward; `closed` is terminal except that a reconciliation still pending on a closed handoff may settle.
 */
export const MANUAL_HANDOFF_TRANSITIONS: Readonly<Record<ManualHandoffOperation, ManualHandoffTransition>> = {
  activate: { from: ['offered'], to: 'active' },
  complete: { from: ['active'], to: 'closing' },
  // `closed` here only with a pending reconciliation (revoked, expired or lost while the operator had access).
  finishReconciliation: { from: ['closing', 'closed'], to: 'closed' },
  unableToComplete: { from: ['offered', 'active'], to: 'closed' },
  revoke: { from: ['offered', 'active', 'closing'], to: 'closed' },
  expire: { from: ['offered', 'active'], to: 'closed' },
  loseInteraction: { from: ['active'], to: 'closed' },
  cancelForAuthorization: { from: ['offered', 'active', 'closing'], to: 'closed' },
};

export const canTransitionManualHandoff = (
  state: ManualHandoffStateName,
  operation: ManualHandoffOperation,
): boolean => MANUAL_HANDOFF_TRANSITIONS[operation].from.includes(state);

/** The target state, or `manual_handoff_invalid_state` naming where the handoff is and what was tried. */
export function transitionManualHandoff(
  state: ManualHandoffStateName,
  operation: ManualHandoffOperation,
): ManualHandoffStateName {
  if (!canTransitionManualHandoff(state, operation)) {
    throw manualHandoffInvalidState(state, operation);
  }
  return MANUAL_HANDOFF_TRANSITIONS[operation].to;
}

/** `operation` may also name a use-case precondition, such as `createAccessGrant`. */
export const manualHandoffInvalidState = (state: ManualHandoffStateName, operation: string): DomainError =>
  new DomainError('manual_handoff_invalid_state', `The manual handoff cannot ${operation} while ${state}.`, {
    state,
    operation,
  });
