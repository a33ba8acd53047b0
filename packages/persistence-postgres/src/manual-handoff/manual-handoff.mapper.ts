import {
  ManualHandoff,
  type ManualHandoffResult,
  type ManualHandoffState,
  type ManualHandoffStateName,
  type ReconciliationState,
  type ReportedOutcome,
  type UnableToCompleteReason,
} from '@prior-auth/domain';
import type { ManualHandoffRow } from './manual-handoff.entity';

export const toManualHandoff = (row: ManualHandoffRow): ManualHandoff =>
  ManualHandoff.rehydrate({
    id: row.id,
    organizationId: row.organization_id,
    environment: row.environment,
    authorizationId: row.authorization_id,
    interactionActionId: row.interaction_action_id,
    state: row.state as ManualHandoffStateName,
    result: row.result as ManualHandoffResult | null,
    runtimeSessionId: row.runtime_session_id,
    reportedOutcome: row.reported_outcome as ReportedOutcome | null,
    observedReferenceNumber: row.observed_reference_number,
    operatorNotes: row.operator_notes,
    unableReason: row.unable_reason as UnableToCompleteReason | null,
    revokeReason: row.revoke_reason,
    revokeNotes: row.revoke_notes,
    reconciliation:
      row.reconciliation_id === null || row.reconciliation_state === null
        ? null
        : { id: row.reconciliation_id, state: row.reconciliation_state as ReconciliationState },
    expiresAt: row.expires_at,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    activatedAt: row.activated_at,
    closedAt: row.closed_at,
  });

export const toManualHandoffRow = (state: ManualHandoffState): ManualHandoffRow => ({
  organization_id: state.organizationId,
  environment: state.environment,
  id: state.id,
  authorization_id: state.authorizationId,
  interaction_action_id: state.interactionActionId,
  version: state.version,
  state: state.state,
  result: state.result,
  runtime_session_id: state.runtimeSessionId,
  reported_outcome: state.reportedOutcome,
  observed_reference_number: state.observedReferenceNumber,
  operator_notes: state.operatorNotes,
  unable_reason: state.unableReason,
  revoke_reason: state.revokeReason,
  revoke_notes: state.revokeNotes,
  reconciliation_id: state.reconciliation?.id ?? null,
  reconciliation_state: state.reconciliation?.state ?? null,
  expires_at: state.expiresAt,
  created_at: state.createdAt,
  updated_at: state.updatedAt,
  activated_at: state.activatedAt,
  closed_at: state.closedAt,
});
