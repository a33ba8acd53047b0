import type { Environment } from '../shared/scope';
import type { AuthorizationStatus, NextActionType, PayerDecisionOutcome } from './authorization.types';

/**
 * Domain events recorded by the aggregate and pulled after a successful save; the use cases turn them into
 * worker jobs (for example `authorization.confirmed` → process). They carry ids and codes only, never
 * answers or other PHI.
 */
export interface AuthorizationEventBase {
  authorizationId: string;
  organizationId: string;
  environment: Environment;
  /** Authorization version after the change that recorded the event. */
  version: number;
  occurredAt: Date;
}

export type AuthorizationEvent = AuthorizationEventBase &
  (
    | { type: 'authorization.created'; status: AuthorizationStatus }
    | { type: 'authorization.answers_updated'; questionnaireResponseVersion: number }
    | { type: 'authorization.attachment_added'; attachmentId: string; fileId: string }
    | { type: 'authorization.attachment_removed'; attachmentId: string; fileId: string }
    | { type: 'authorization.requirements_changed'; requirementsVersion: number }
    | {
        type: 'authorization.confirmed';
        nextActionId: string;
        actionType: 'advance_case' | 'approve_submission';
      }
    | { type: 'authorization.canceled'; from: AuthorizationStatus }
    | { type: 'authorization.status_changed'; from: AuthorizationStatus; to: AuthorizationStatus }
    | { type: 'authorization.next_action_opened'; nextActionId: string; actionType: NextActionType }
    | {
        type: 'authorization.portal_requirements_revealed';
        itemCount: number;
        documentCount: number;
        issueCount: number;
      }
    | { type: 'authorization.final_approval_requested'; reviewSnapshotId: string; nextActionId: string }
    | { type: 'authorization.final_boundary_crossed' }
    | { type: 'authorization.manual_interaction_required'; nextActionId: string; reason: string }
    | { type: 'authorization.manual_interaction_resumed' }
    | { type: 'authorization.receipt_recorded'; decisionDueAt: Date }
    | { type: 'authorization.decision_recorded'; outcome: PayerDecisionOutcome }
    | { type: 'authorization.more_information_requested'; documentType: string }
    | { type: 'authorization.failed'; code: string }
  );

export type AuthorizationEventType = AuthorizationEvent['type'];

/** Narrows an event by its `type`, for consumers such as the use case that enqueues worker jobs. */
export const isAuthorizationEventOfType = <T extends AuthorizationEventType>(
  event: AuthorizationEvent,
  type: T,
): event is Extract<AuthorizationEvent, { type: T }> => event.type === type;
