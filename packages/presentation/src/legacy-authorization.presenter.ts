import {
  presentQuestionnaire,
  type Authorization,
  type AuthorizationStatus,
  type QuestionnaireResponse,
  type QuestionnaireTemplate,
} from '@prior-auth/domain';
import {
  iso,
  isoOrNull,
  presentDecision,
  presentPayer,
  presentQuestionnaireResponse,
  presentRequirements,
  presentTemplateSelection,
} from './authorization.presenter';

/*
 * The spec's "Authorization (legacy, create/answers variants)", answered under API version 2024-01-01 (shared
 * decision 0029). A view of the same aggregate as the current shape: only names and groupings differ.
 */

/** Decision 0029's status mapping; every current status has exactly one legacy name. */
export const LEGACY_STATUS_OF = {
  requires_input: 'draft',
  requires_confirmation: 'ready',
  processing: 'in_progress',
  requires_action: 'action_required',
  waiting_on_payer: 'waiting_on_payer',
  completed: 'completed',
  canceled: 'cancelled',
} as const satisfies Record<AuthorizationStatus, string>;

export const LEGACY_STATUSES = [...new Set(Object.values(LEGACY_STATUS_OF))];

/** The legacy questionnaire: the groups with items reduced to the interface's legacy fields (decision 0019). */
export const presentLegacyQuestionnaire = (
  questionnaire: QuestionnaireTemplate,
  response: QuestionnaireResponse,
) =>
  presentQuestionnaire(questionnaire, response).map((group) => ({
    id: group.id,
    title: group.title,
    items: group.items.map((item) => ({
      linkId: item.linkId,
      text: item.text,
      required: item.required,
      answerType: item.answerType,
      ...(item.options ? { options: item.options.map((o) => ({ code: o.code, display: o.display })) } : {}),
    })),
  }));

export function presentLegacyAuthorization(authorization: Authorization) {
  const s = authorization.readState();
  const receipt = s.submission.payerReceipt;
  return {
    id: s.id,
    version: s.version,
    status: LEGACY_STATUS_OF[s.status],
    providerNpi: s.providerNpi,
    payer: presentPayer(s.payer),
    templateSelection: presentTemplateSelection(s.templateSelection),
    questionnaire: presentLegacyQuestionnaire(s.questionnaire, s.questionnaireResponse),
    questionnaireResponse: presentQuestionnaireResponse(s.questionnaireResponse),
    requirements: presentRequirements(s.requirements),
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    outcome: s.outcome,
    attachments: s.attachments.map((attachment) => ({
      id: attachment.id,
      fileId: attachment.fileId,
      label: attachment.label,
      createdAt: iso(attachment.createdAt),
      documentTypes: [...attachment.documentTypes],
    })),
    confirmation: receipt
      ? {
          receivedAt: iso(receipt.receivedAt),
          referenceNumber: receipt.referenceNumber,
          details: receipt.details,
        }
      : null,
    decision: s.submission.decision ? presentDecision(s.submission.decision) : null,
    submittedAt: isoOrNull(s.finalBoundaryCrossedAt),
    completedAt: isoOrNull(s.completedAt),
  };
}
