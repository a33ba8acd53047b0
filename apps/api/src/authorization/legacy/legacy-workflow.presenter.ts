import {
  requirementChecklist,
  type Answer,
  type Authorization,
  type AuthorizationState,
  type AuthorizationStatus,
  type File,
  type PayerRequest,
  type QuestionnaireResponse,
  type SubmissionAttempt,
} from '@prior-auth/domain';
import { iso, isoOrNull, presentFile, presentLegacyQuestionnaire } from '@prior-auth/presentation';

/*
 * The spec's "Authorization (legacy, workflow variant)", answered by `PATCH …/{id}` and
 * `POST …/actions/{actionId}/resolve` whatever the API version (docs/decisions/0029 and 0032). A view of
 * the same aggregate: the payer's requests for more information are its action items, its submission attempts
 * the source of `latestSubmissionAttempt`; `previewFile` is the case's submission preview, null while
 * requirements are open.
 */

export const WORKFLOW_STATES = [
  'needs_input',
  'ready_to_submit',
  'submitting',
  'pending_payer',
  'action_required',
  'completed',
  'cancelled',
] as const;
export const DECISION_STATES = ['unknown', 'pending', 'approved', 'denied'] as const;
export const ACTION_ITEM_TYPES = ['payer_request_for_information'] as const;

const WORKFLOW_STATE_OF = {
  requires_input: 'needs_input',
  requires_confirmation: 'ready_to_submit',
  processing: 'submitting',
  requires_action: 'action_required',
  waiting_on_payer: 'pending_payer',
  completed: 'completed',
  canceled: 'cancelled',
} as const satisfies Record<AuthorizationStatus, (typeof WORKFLOW_STATES)[number]>;

/** Decision 0029: an open payer request makes an editable case `action_required`. */
function workflowStateOf(s: AuthorizationState): (typeof WORKFLOW_STATES)[number] {
  const open = s.submission.payerRequests.some((r) => r.status === 'open');
  if (open && (s.status === 'requires_input' || s.status === 'requires_confirmation'))
    return 'action_required';
  return WORKFLOW_STATE_OF[s.status];
}

function decisionStateOf(s: AuthorizationState): (typeof DECISION_STATES)[number] {
  if (s.outcome === 'denied') return 'denied';
  if (s.outcome === 'approved' || s.outcome === 'modified' || s.outcome === 'not_required') return 'approved';
  if (s.outcome === 'failed' || s.submission.payerReceipt === null) return 'unknown';
  return 'pending';
}

/** The FHIR value of one answer, without its `value[x]` wrapper. */
function valueOf(answer: Answer): unknown {
  if (answer.valueCoding !== undefined) return { ...answer.valueCoding };
  if (answer.valueQuantity !== undefined) return { ...answer.valueQuantity };
  const [value] = Object.values(answer);
  return value ?? null;
}

/**
 * `{linkId: value}`: the single value, or an array when several (decision 0029); a question answered in several
 * instances of its repeating group lists their values in response order (this shape has no instance).
 */
export function answersByLinkId(response: QuestionnaireResponse): Record<string, unknown> {
  const byLinkId = new Map<string, unknown[]>();
  for (const item of response.item) {
    if (item.answer.length === 0) continue;
    const values = byLinkId.get(item.linkId) ?? [];
    values.push(...item.answer.map(valueOf));
    byLinkId.set(item.linkId, values);
  }
  const answers: Record<string, unknown> = {};
  for (const [linkId, values] of byLinkId) answers[linkId] = values.length === 1 ? values[0] : values;
  return answers;
}

const presentActionItem = (request: PayerRequest) => ({
  id: request.id,
  type: 'payer_request_for_information' as const,
  status: request.status,
  message: request.message,
  createdAt: iso(request.createdAt),
  requestedDocuments: [request.documentType],
  resolutionHint:
    `Attach the requested document (${request.documentLabel}, document type ${request.documentType}), ` +
    'then resolve this action naming that attachment.',
  resolutionNote: request.resolutionNote,
  resolvedAt: isoOrNull(request.resolvedAt),
});

const presentAttempt = (authorizationId: string, attempt: SubmissionAttempt) => ({
  id: attempt.id,
  authorizationId,
  status: attempt.status,
  submissionReference: attempt.submissionReference,
  acceptedAt: isoOrNull(attempt.acceptedAt),
  confirmedAt: isoOrNull(attempt.confirmedAt),
  errorCode: attempt.errorCode,
  errorMessage: attempt.errorMessage,
});

export function presentLegacyWorkflow(authorization: Authorization, preview: File | null) {
  const s = authorization.toState();
  const attachedTypes = [...new Set(s.attachments.flatMap((a) => a.documentTypes))];
  const checklist = requirementChecklist(
    s.questionnaire,
    s.documentRequirements,
    s.questionnaireResponse,
    attachedTypes,
  );
  const latestAttempt = s.submission.attempts[s.submission.attempts.length - 1];
  return {
    id: s.id,
    workflowState: workflowStateOf(s),
    decisionState: decisionStateOf(s),
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    // The catalog keeps no effective date for a template version (decision 0032).
    template: {
      id: s.questionnaire.id,
      version: s.questionnaire.version,
      sourceName: s.questionnaire.title,
      effectiveDate: null,
    },
    questionnaire: presentLegacyQuestionnaire(s.questionnaire, s.questionnaireResponse),
    requirements: {
      questions: checklist.questions.map((q) => ({
        linkId: q.linkId,
        ...(q.instance === undefined ? {} : { instance: q.instance }),
        required: q.required,
        answered: q.answered,
      })),
      documents: checklist.documents.map((d) => ({
        key: d.type,
        label: d.label,
        required: d.required,
        provided: d.provided,
        message: d.message,
      })),
      issues: s.requirements.issues.map((i) => ({
        code: i.code,
        message: i.message,
        field: i.field,
        severity: i.severity,
        blocking: i.severity === 'error',
      })),
    },
    // Every route is a portal route; `efax` is reserved (decision 0029).
    submissionChannel: null,
    answers: answersByLinkId(s.questionnaireResponse),
    attachments: s.attachments.map((a) => ({
      id: a.id,
      fileId: a.fileId,
      label: a.label,
      createdAt: iso(a.createdAt),
    })),
    actions: s.submission.payerRequests.map(presentActionItem),
    // Without a download URL, like a listed file: `GET /v1/files/{id}` mints one.
    previewFile: preview === null ? null : presentFile(preview),
    latestSubmissionAttempt: latestAttempt === undefined ? null : presentAttempt(s.id, latestAttempt),
  };
}
