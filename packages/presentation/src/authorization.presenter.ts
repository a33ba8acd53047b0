import {
  presentQuestionnaire,
  reviewLiveViewUrl,
  reviewLiveViewUrlLapsesAt,
  type Attachment,
  type AuthorizationStatus,
  type Authorization,
  type NextAction,
  type Payer,
  type PayerDecision,
  type PayerReceipt,
  type QuestionnaireResponse,
  type Requirements,
  type ReviewSnapshot,
  type TemplateSelection,
} from '@prior-auth/domain';

/*
 * The spec's Authorization (current shape), built field by field from the aggregate's state: nothing is
 * serialized from an entity, so internal fields (organizationId, environment, routeId, documentRequirements,
 * portalIssues, finalBoundaryCrossedAt, the *Version counters, a failure's details, a snapshot's
 * nextActionId, a decision's outcome duplicate) never reach a client. Times are ISO 8601 UTC strings.
 */

export const iso = (date: Date | string): string => new Date(date).toISOString();
export const isoOrNull = (date: Date | string | null): string | null => (date === null ? null : iso(date));

export const presentPayer = (payer: Payer) => ({
  id: payer.id,
  displayName: payer.displayName,
  supportedStates: [...payer.supportedStates],
  supportedServiceTypes: [...payer.supportedServiceTypes],
  aliases: [...payer.aliases],
  status: payer.status,
  ...(payer.brand ? { brand: payer.brand } : {}),
  ...(payer.lineOfBusiness ? { lineOfBusiness: payer.lineOfBusiness } : {}),
});

export const presentQuestionnaireResponse = (response: QuestionnaireResponse) => ({
  item: response.item.map((item) => ({
    linkId: item.linkId,
    ...(typeof item.instance === 'number' ? { instance: item.instance } : {}),
    answer: item.answer.map((answer) => {
      if (answer.valueCoding !== undefined) return { valueCoding: { ...answer.valueCoding } };
      return { ...answer };
    }),
  })),
});

const presentAttachment = (attachment: Attachment) => ({
  id: attachment.id,
  fileId: attachment.fileId,
  createdAt: iso(attachment.createdAt),
  documentTypes: [...attachment.documentTypes],
  label: attachment.label,
  description: attachment.description,
});

const presentNextAction = (action: NextAction) => ({
  id: action.id,
  type: action.type,
  description: action.description,
  authorizationVersion: action.authorizationVersion,
  requirementsVersion: action.requirementsVersion,
  createdAt: iso(action.createdAt),
  owner: action.owner,
  reviewSnapshotId: action.reviewSnapshotId,
  expiresAt: isoOrNull(action.expiresAt),
  ...(action.resolution
    ? { resolution: { kind: action.resolution.kind, reason: action.resolution.reason } }
    : {}),
});

const presentReviewSnapshot = (snapshot: ReviewSnapshot, status: AuthorizationStatus, at: Date) => ({
  id: snapshot.id,
  generatedAt: iso(snapshot.generatedAt),
  covers: {
    authorizationVersion: snapshot.covers.authorizationVersion,
    requirementsVersion: snapshot.covers.requirementsVersion,
    questionnaireResponseVersion: snapshot.covers.questionnaireResponseVersion,
    attachmentVersion: snapshot.covers.attachmentVersion,
  },
  status: snapshot.status,
  kind: snapshot.kind,
  summary: snapshot.summary,
  questionnaireResponse: presentQuestionnaireResponse(snapshot.questionnaireResponse),
  attachments: snapshot.attachments.map(presentAttachment),
  warnings: [...snapshot.warnings],
  // Null once the customer's sign-in the review was prepared with is no longer held (decision 0046).
  liveViewUrl: reviewLiveViewUrl(snapshot, status, at),
});

const presentReceipt = (receipt: PayerReceipt) => ({
  receivedAt: iso(receipt.receivedAt),
  referenceNumber: receipt.referenceNumber,
  channel: receipt.channel,
  payerStatusText: receipt.payerStatusText,
  details: receipt.details,
});

export const presentDecision = (decision: PayerDecision) => ({
  receivedAt: iso(decision.receivedAt),
  authorizationNumber: decision.authorizationNumber,
  payerStatusText: decision.payerStatusText,
  effectiveFrom: decision.effectiveFrom,
  effectiveTo: decision.effectiveTo,
  modifications: [...decision.modifications],
  denialReasons: [...decision.denialReasons],
  details: decision.details,
});

export const presentTemplateSelection = (selection: TemplateSelection) => ({
  payerId: selection.payerId,
  insuranceState: selection.insuranceState,
  serviceType: selection.serviceType,
  serviceCode: selection.serviceCode,
  serviceCodeSystem: selection.serviceCodeSystem,
});

export const presentRequirements = (requirements: Requirements) => ({
  version: requirements.version,
  questions: requirements.questions.map((q) => ({
    linkId: q.linkId,
    ...(q.instance === undefined ? {} : { instance: q.instance }),
    message: q.message,
  })),
  documents: requirements.documents.map((d) => ({ type: d.type, message: d.message })),
  issues: requirements.issues.map((i) => ({
    code: i.code,
    message: i.message,
    field: i.field,
    severity: i.severity,
    ...(i.instance === undefined ? {} : { instance: i.instance }),
  })),
});

/** `at`: the moment the resource is shown as of (an event's own time for an event). */
export function presentAuthorization(authorization: Authorization, at: Date = new Date()) {
  const s = authorization.readState();
  return {
    id: s.id,
    version: s.version,
    status: s.status,
    policy: { finalSubmission: s.policy.finalSubmission },
    providerNpi: s.providerNpi,
    payer: presentPayer(s.payer),
    templateSelection: presentTemplateSelection(s.templateSelection),
    questionnaire: presentQuestionnaire(s.questionnaire, s.questionnaireResponse),
    questionnaireResponse: presentQuestionnaireResponse(s.questionnaireResponse),
    requirements: presentRequirements(s.requirements),
    submission: {
      reviewSnapshot: s.submission.reviewSnapshot
        ? presentReviewSnapshot(s.submission.reviewSnapshot, s.status, at)
        : null,
      payerReceipt: s.submission.payerReceipt ? presentReceipt(s.submission.payerReceipt) : null,
      decision: s.submission.decision ? presentDecision(s.submission.decision) : null,
      decisionDueAt: isoOrNull(s.decisionDueAt),
    },
    outcome: s.outcome,
    failure: s.failure
      ? { code: s.failure.code, message: s.failure.message, retryable: s.failure.retryable }
      : null,
    portalAuthMode: s.portalAuthMode,
    attachments: s.attachments.map(presentAttachment),
    nextAction: s.nextAction ? presentNextAction(s.nextAction) : null,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    completedAt: isoOrNull(s.completedAt),
    canceledAt: isoOrNull(s.canceledAt),
  };
}

export type PresentedAuthorization = ReturnType<typeof presentAuthorization>;

/**
 * Until when (epoch ms) presentAuthorization shows this version of the authorization the same, or null when
 * always: the review's live-view link is the one field that depends on the moment shown.
 */
export function authorizationPresentationLapsesAt(authorization: Authorization): number | null {
  const s = authorization.readState();
  const snapshot = s.submission.reviewSnapshot;
  return snapshot ? reviewLiveViewUrlLapsesAt(snapshot, s.status) : null;
}

/** Decision 0023: every response carrying an authorization has `ETag: "<version>"`. */
export const etagOf = (authorization: Authorization): string => etagOfVersion(authorization.version);
export const etagOfVersion = (version: number): string => `"${version}"`;
