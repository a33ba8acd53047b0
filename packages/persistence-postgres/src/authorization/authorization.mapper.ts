import {
  Authorization,
  isRetryableFailureCode,
  type Attachment,
  type AuthorizationFailure,
  type AuthorizationState,
  type AuthorizationStatus,
  type NextAction,
  type Outcome,
  type PayerDecision,
  type PayerReceipt,
  type PayerRequest,
  type PortalAuthMode,
  type ReviewSnapshot,
  type ReviewSnapshotStatus,
  type SubmissionAttempt,
} from '@prior-auth/domain';
import type { AttachmentRow, AuthorizationRow, ReviewSnapshotRow, Stored } from './authorization.entity';
import { storedQuestionnaire } from './questionnaire-text-cache';

/** The rows one authorization is stored as: its own row, its attachments and its current review snapshot. */
export interface AuthorizationRows {
  authorization: AuthorizationRow;
  attachments: AttachmentRow[];
  reviewSnapshot: ReviewSnapshotRow | null;
}

const date = (value: string): Date => new Date(value);

const missing = (message: string): never => {
  throw new Error(message);
};
const optionalDate = (value: string | null | undefined): Date | null =>
  value == null ? null : new Date(value);

// JSON turns a Date into its ISO string; these functions are where the stored documents get them back.
const reviveNextAction = (stored: Stored<NextAction> | null): NextAction | null =>
  stored === null
    ? null
    : { ...stored, createdAt: date(stored.createdAt), expiresAt: optionalDate(stored.expiresAt) };

const reviveReceipt = (stored: Stored<PayerReceipt> | null): PayerReceipt | null =>
  stored === null ? null : { ...stored, receivedAt: date(stored.receivedAt) };

const reviveDecision = (stored: Stored<PayerDecision> | null): PayerDecision | null =>
  stored === null ? null : { ...stored, receivedAt: date(stored.receivedAt) };

const revivePayerRequest = (stored: Stored<PayerRequest>): PayerRequest => ({
  ...stored,
  createdAt: date(stored.createdAt),
  resolvedAt: optionalDate(stored.resolvedAt),
});

const reviveAttempt = (stored: Stored<SubmissionAttempt>): SubmissionAttempt => ({
  ...stored,
  startedAt: date(stored.startedAt),
  acceptedAt: optionalDate(stored.acceptedAt),
  confirmedAt: optionalDate(stored.confirmedAt),
});

const reviveAttachment = (stored: Stored<Attachment>): Attachment => ({
  ...stored,
  createdAt: date(stored.createdAt),
});

const toAttachment = (row: AttachmentRow): Attachment => ({
  id: row.id,
  fileId: row.file_id,
  createdAt: row.created_at,
  documentTypes: row.document_types,
  label: row.label,
  description: row.description,
});

const toReviewSnapshot = (row: ReviewSnapshotRow): ReviewSnapshot => ({
  id: row.id,
  generatedAt: row.generated_at,
  covers: {
    authorizationVersion: row.covers_authorization_version,
    requirementsVersion: row.covers_requirements_version,
    questionnaireResponseVersion: row.covers_questionnaire_response_version,
    attachmentVersion: row.covers_attachment_version,
  },
  status: row.status as ReviewSnapshotStatus,
  kind: 'final_submission',
  summary: row.summary,
  questionnaireResponse: row.questionnaire_response,
  attachments: row.attachments.map(reviveAttachment),
  warnings: row.warnings,
  liveViewUrl: row.live_view_url,
  nextActionId: row.next_action_id,
});

/**
 * Rows → state → aggregate. The state is built here from rows read for this call alone, so the aggregate
 * takes it over without a copy (`rehydrateOwned`).
 */
export function toAuthorization(rows: AuthorizationRows): Authorization {
  const row = rows.authorization;
  if (rows.reviewSnapshot !== null && rows.reviewSnapshot.id !== row.review_snapshot_id) {
    throw new Error(
      `authorization ${row.id}: loaded review snapshot ${rows.reviewSnapshot.id} is not its current one`,
    );
  }
  const attachments = [...rows.attachments].sort((a, b) => a.position - b.position).map(toAttachment);
  const state: AuthorizationState = {
    id: row.id,
    organizationId: row.organization_id,
    environment: row.environment,
    version: row.version,
    status: row.status as AuthorizationStatus,
    policy: row.policy,
    providerNpi: row.provider_npi,
    payer: row.payer,
    templateSelection: row.template_selection,
    routeId: row.route_id,
    portalAuthMode: row.portal_auth_mode as PortalAuthMode,
    questionnaire:
      row.questionnaire ??
      missing(`authorization ${row.id}: its shared questionnaire ${row.questionnaire_id} was not loaded`),
    documentRequirements: row.document_requirements,
    portalIssues: row.portal_issues,
    questionnaireResponse: row.questionnaire_response,
    questionnaireResponseVersion: row.questionnaire_response_version,
    attachments,
    attachmentVersion: row.attachment_version,
    requirements: row.requirements,
    nextAction: reviveNextAction(row.next_action),
    submission: {
      reviewSnapshot: rows.reviewSnapshot === null ? null : toReviewSnapshot(rows.reviewSnapshot),
      payerReceipt: reviveReceipt(row.submission.payerReceipt),
      decision: reviveDecision(row.submission.decision),
      payerRequests: (row.submission.payerRequests ?? []).map(revivePayerRequest),
      attempts: (row.submission.attempts ?? []).map(reviveAttempt),
    },
    outcome: row.outcome as Outcome | null,
    failure: reviveFailure(row.failure),
    finalBoundaryCrossedAt: row.final_boundary_crossed_at,
    decisionDueAt: row.decision_due_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    canceledAt: row.canceled_at,
  };
  return Authorization.rehydrateOwned(state);
}

/**
 * State → rows. JSONB documents are written as the aggregate holds them (dates become ISO strings, which
 * `toAuthorization` revives); the Stored<> casts only restate that.
 */
export function toAuthorizationRows(state: AuthorizationState): AuthorizationRows {
  // The tenant's columns are written out in each row rather than spread into it: V8 gives an object literal that
  // begins with a spread and adds members after it a new hidden class on every call (docs/performance.md,
  // twentieth round), which made this mapping about 90 µs a case.
  const { organizationId: organization_id, environment } = state;
  const snapshot = state.submission.reviewSnapshot;
  const shared = storedQuestionnaire(state.questionnaire);
  return {
    authorization: {
      organization_id,
      environment,
      id: state.id,
      version: state.version,
      status: state.status,
      outcome: state.outcome,
      provider_npi: state.providerNpi,
      payer_id: state.payer.id,
      route_id: state.routeId,
      portal_auth_mode: state.portalAuthMode,
      policy: state.policy,
      payer: state.payer,
      template_selection: state.templateSelection,
      // A catalog template is stored once and pointed at (decision 0059); any other questionnaire in the row.
      questionnaire: shared === null ? state.questionnaire : null,
      questionnaire_id: shared?.id ?? null,
      document_requirements: state.documentRequirements,
      portal_issues: state.portalIssues,
      questionnaire_response: state.questionnaireResponse,
      questionnaire_response_version: state.questionnaireResponseVersion,
      attachment_version: state.attachmentVersion,
      requirements: state.requirements,
      next_action: state.nextAction as unknown as Stored<NextAction> | null,
      submission: {
        payerReceipt: state.submission.payerReceipt as unknown as Stored<PayerReceipt> | null,
        decision: state.submission.decision as unknown as Stored<PayerDecision> | null,
        payerRequests: state.submission.payerRequests as unknown as Array<Stored<PayerRequest>>,
        attempts: state.submission.attempts as unknown as Array<Stored<SubmissionAttempt>>,
      },
      review_snapshot_id: snapshot?.id ?? null,
      failure: state.failure,
      final_boundary_crossed_at: state.finalBoundaryCrossedAt,
      decision_due_at: state.decisionDueAt,
      created_at: state.createdAt,
      updated_at: state.updatedAt,
      completed_at: state.completedAt,
      canceled_at: state.canceledAt,
    },
    attachments: state.attachments.map((attachment, position) => ({
      organization_id,
      environment,
      authorization_id: state.id,
      id: attachment.id,
      position,
      file_id: attachment.fileId,
      document_types: attachment.documentTypes,
      label: attachment.label,
      description: attachment.description,
      created_at: attachment.createdAt,
    })),
    reviewSnapshot:
      snapshot === null
        ? null
        : {
            organization_id,
            environment,
            id: snapshot.id,
            authorization_id: state.id,
            status: snapshot.status,
            kind: snapshot.kind,
            generated_at: snapshot.generatedAt,
            covers_authorization_version: snapshot.covers.authorizationVersion,
            covers_requirements_version: snapshot.covers.requirementsVersion,
            covers_questionnaire_response_version: snapshot.covers.questionnaireResponseVersion,
            covers_attachment_version: snapshot.covers.attachmentVersion,
            summary: snapshot.summary,
            questionnaire_response: snapshot.questionnaireResponse,
            attachments: snapshot.attachments as unknown as Array<Stored<Attachment>>,
            warnings: snapshot.warnings,
            live_view_url: snapshot.liveViewUrl,
            next_action_id: snapshot.nextActionId,
          },
  };
}

/** Failures stored before `retryable` existed get it from the code (docs/decisions/0031-events-and-webhooks.md). */
function reviveFailure(stored: AuthorizationFailure | null): AuthorizationFailure | null {
  if (stored === null) return null;
  const { code, message, details } = stored;
  const retryable = typeof stored.retryable === 'boolean' ? stored.retryable : isRetryableFailureCode(code);
  return { code, message, retryable, details };
}
