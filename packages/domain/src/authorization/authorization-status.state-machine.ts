import { DomainError } from '../shared/domain-error';
import type { AuthorizationStatus } from './authorization.types';

/** Every behaviour of the aggregate that may move (or keep) the status. */
export type AuthorizationCommand =
  | 'edit'
  | 'confirm'
  | 'cancel'
  | 'reveal_portal_requirements'
  | 'request_final_approval'
  | 'cross_final_boundary'
  | 'require_manual_interaction'
  | 'resume_after_manual_interaction'
  | 'record_receipt'
  | 'record_decision'
  | 'request_more_information'
  | 'fail';

export const AUTHORIZATION_COMMANDS = [
  'edit',
  'confirm',
  'cancel',
  'reveal_portal_requirements',
  'request_final_approval',
  'cross_final_boundary',
  'require_manual_interaction',
  'resume_after_manual_interaction',
  'record_receipt',
  'record_decision',
  'request_more_information',
  'fail',
] as const satisfies readonly AuthorizationCommand[];

export interface AuthorizationTransition {
  from: AuthorizationStatus;
  command: AuthorizationCommand;
  /** Several targets when the outcome depends on the recomputed requirements. */
  to: readonly AuthorizationStatus[];
}

const NON_TERMINAL: readonly AuthorizationStatus[] = [
  'requires_input',
  'requires_confirmation',
  'processing',
  'requires_action',
  'waiting_on_payer',
];

/**
 * The single source of truth for status moves. A (from, command) pair absent from the table is refused;
 * the aggregate maps refusals of customer commands to their catalog codes and the rest to invalid_transition.
 */
export const AUTHORIZATION_TRANSITIONS: readonly AuthorizationTransition[] = [
  { from: 'requires_input', command: 'edit', to: ['requires_input', 'requires_confirmation'] },
  { from: 'requires_confirmation', command: 'edit', to: ['requires_input', 'requires_confirmation'] },
  { from: 'requires_confirmation', command: 'confirm', to: ['processing'] },
  ...NON_TERMINAL.map((from) => ({ from, command: 'cancel' as const, to: ['canceled'] as const })),
  {
    from: 'processing',
    command: 'reveal_portal_requirements',
    to: ['requires_input', 'requires_confirmation'],
  },
  { from: 'processing', command: 'request_final_approval', to: ['requires_confirmation'] },
  { from: 'processing', command: 'cross_final_boundary', to: ['processing'] },
  { from: 'processing', command: 'require_manual_interaction', to: ['requires_action'] },
  // A completed manual handoff hands the case back to the pipeline, never straight to the payer states.
  { from: 'requires_action', command: 'resume_after_manual_interaction', to: ['processing'] },
  { from: 'processing', command: 'record_receipt', to: ['waiting_on_payer'] },
  { from: 'waiting_on_payer', command: 'record_decision', to: ['completed'] },
  // Normally requires_input; requires_confirmation when an existing attachment already satisfies the request.
  {
    from: 'waiting_on_payer',
    command: 'request_more_information',
    to: ['requires_input', 'requires_confirmation'],
  },
  { from: 'processing', command: 'fail', to: ['completed'] },
  { from: 'requires_action', command: 'fail', to: ['completed'] },
];

export const TERMINAL_STATUSES: readonly AuthorizationStatus[] = ['completed', 'canceled'];
export const EDITABLE_STATUSES: readonly AuthorizationStatus[] = ['requires_input', 'requires_confirmation'];

export const isTerminalStatus = (status: AuthorizationStatus): boolean => TERMINAL_STATUSES.includes(status);

const findTransition = (
  from: AuthorizationStatus,
  command: AuthorizationCommand,
): AuthorizationTransition | undefined =>
  AUTHORIZATION_TRANSITIONS.find((t) => t.from === from && t.command === command);

export const isCommandAllowed = (from: AuthorizationStatus, command: AuthorizationCommand): boolean =>
  findTransition(from, command) !== undefined;

export const canTransition = (
  from: AuthorizationStatus,
  command: AuthorizationCommand,
  to: AuthorizationStatus,
): boolean => findTransition(from, command)?.to.includes(to) ?? false;

/** Targets a command may reach from a status; empty when the command is refused there. */
export const transitionTargets = (
  from: AuthorizationStatus,
  command: AuthorizationCommand,
): readonly AuthorizationStatus[] => findTransition(from, command)?.to ?? [];

export const invalidTransition = (
  from: AuthorizationStatus,
  to: AuthorizationStatus,
  command: AuthorizationCommand,
  reason?: string,
): DomainError =>
  new DomainError(
    'invalid_transition',
    `The authorization cannot move from ${from} to ${to}.`,
    reason === undefined ? { from, to, command } : { from, to, command, reason },
  );

/** Throws invalid_transition unless the table allows `command` to move `from` to `to`. */
export const assertTransition = (
  from: AuthorizationStatus,
  command: AuthorizationCommand,
  to: AuthorizationStatus,
): void => {
  if (!canTransition(from, command, to)) throw invalidTransition(from, to, command);
};
