import type { Environment } from '../shared/scope';
import type {
  DocumentRequirement,
  QuestionnaireItemTemplate,
  QuestionnaireResponse,
  QuestionnaireTemplate,
  RequirementIssue,
  RequirementSet,
} from '../requirements/questionnaire.types';

export type AuthorizationStatus =
  | 'requires_input'
  | 'requires_confirmation'
  | 'processing'
  | 'requires_action'
  | 'waiting_on_payer'
  | 'completed'
  | 'canceled';

export const AUTHORIZATION_STATUSES = [
  'requires_input',
  'requires_confirmation',
  'processing',
  'requires_action',
  'waiting_on_payer',
  'completed',
  'canceled',
] as const satisfies readonly AuthorizationStatus[];

/*
 * The value lists below are the one definition of each enum: the types derive from them, and the API's
 * validation and OpenAPI document import them.
 */

export const OUTCOMES = ['approved', 'denied', 'modified', 'not_required', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const FINAL_SUBMISSION_POLICIES = ['automatic', 'requires_confirmation'] as const;
export type FinalSubmissionPolicy = (typeof FINAL_SUBMISSION_POLICIES)[number];
export const PORTAL_AUTH_MODES = ['automated', 'customer_login'] as const;
export type PortalAuthMode = (typeof PORTAL_AUTH_MODES)[number];
export const SERVICE_TYPES = ['inpatient', 'outpatient', 'drug'] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];
export const SERVICE_CODE_SYSTEMS = ['hcpcs', 'cpt', 'ndc'] as const;
export type ServiceCodeSystem = (typeof SERVICE_CODE_SYSTEMS)[number];

export interface AuthorizationPolicy {
  finalSubmission: FinalSubmissionPolicy;
}

export interface Payer {
  id: string;
  displayName: string;
  supportedStates: string[];
  supportedServiceTypes: ServiceType[];
  aliases: string[];
  status: string;
  brand: string | null;
  lineOfBusiness: string | null;
}

export interface TemplateSelection {
  payerId: string;
  insuranceState: string;
  serviceType: ServiceType;
  serviceCode: string;
  serviceCodeSystem: ServiceCodeSystem;
}

export const NEXT_ACTION_TYPES = [
  'provide_requirements',
  'advance_case',
  'approve_submission',
  'complete_payer_interaction',
] as const;
export type NextActionType = (typeof NEXT_ACTION_TYPES)[number];

export const NEXT_ACTION_OWNERS = ['customer', 'operator'] as const;
export type NextActionOwner = (typeof NEXT_ACTION_OWNERS)[number];

export interface ManualHandoffResolution {
  kind: 'manual_handoff';
  reason: string;
}

export interface NextAction {
  id: string;
  type: NextActionType;
  description: string;
  /** Authorization version the action was created against (after the bump that created it). */
  authorizationVersion: number;
  requirementsVersion: number;
  createdAt: Date;
  owner: NextActionOwner;
  /** Set only for approve_submission. */
  reviewSnapshotId: string | null;
  expiresAt: Date | null;
  /** Set only for complete_payer_interaction. */
  resolution: ManualHandoffResolution | null;
}

export interface Attachment {
  id: string;
  fileId: string;
  createdAt: Date;
  documentTypes: string[];
  label: string;
  description: string | null;
}

export const REVIEW_SNAPSHOT_STATUSES = ['current', 'stale', 'approved'] as const;
export type ReviewSnapshotStatus = (typeof REVIEW_SNAPSHOT_STATUSES)[number];

export interface ReviewSnapshotCovers {
  authorizationVersion: number;
  requirementsVersion: number;
  questionnaireResponseVersion: number;
  attachmentVersion: number;
}

export interface ReviewSnapshot {
  id: string;
  generatedAt: Date;
  covers: ReviewSnapshotCovers;
  status: ReviewSnapshotStatus;
  kind: 'final_submission';
  summary: Record<string, unknown>;
  questionnaireResponse: QuestionnaireResponse;
  attachments: Attachment[];
  warnings: string[];
  liveViewUrl: string | null;
  /** The approve_submission action this snapshot was shown for; lets confirm tell review_stale apart. */
  nextActionId: string;
}

export interface PayerReceipt {
  receivedAt: Date;
  referenceNumber: string | null;
  channel: string;
  payerStatusText: string;
  details: Record<string, unknown>;
}

export type PayerDecisionOutcome = 'approved' | 'denied' | 'modified' | 'not_required';

export interface PayerDecision {
  receivedAt: Date;
  outcome: PayerDecisionOutcome;
  authorizationNumber: string | null;
  payerStatusText: string;
  effectiveFrom: string | null;
  effectiveTo: string | null;
  modifications: string[];
  denialReasons: string[];
  details: Record<string, unknown>;
}

/**
 * The payer asked for more information after receipt (decision 0032): one entry per request, kept after it
 * is resolved. Resolved by the confirm that moves the case on once the requested document is attached.
 */
export const PAYER_REQUEST_STATUSES = ['open', 'resolved'] as const;
export type PayerRequestStatus = (typeof PAYER_REQUEST_STATUSES)[number];

export interface PayerRequest {
  id: string;
  status: PayerRequestStatus;
  documentType: string;
  documentLabel: string;
  message: string;
  createdAt: Date;
  resolutionNote: string | null;
  resolvedAt: Date | null;
  /** Attachments named when the request was resolved explicitly; empty when a plain confirm resolved it. */
  attachmentIds: string[];
}

/**
 * One pass of the case to the payer (decision 0032): opened when the final submission boundary is crossed,
 * `accepted` when the payer's receipt is recorded, `confirmed` when its decision arrives, `failed` when the
 * case fails before that. A request for more information leaves the attempt accepted; the next crossing opens
 * a new one.
 */
export const SUBMISSION_ATTEMPT_STATUSES = ['pending', 'accepted', 'confirmed', 'failed'] as const;
export type SubmissionAttemptStatus = (typeof SUBMISSION_ATTEMPT_STATUSES)[number];

export interface SubmissionAttempt {
  id: string;
  status: SubmissionAttemptStatus;
  startedAt: Date;
  submissionReference: string | null;
  acceptedAt: Date | null;
  confirmedAt: Date | null;
  errorCode: string | null;
  errorMessage: string | null;
}

export interface Submission {
  reviewSnapshot: ReviewSnapshot | null;
  payerReceipt: PayerReceipt | null;
  decision: PayerDecision | null;
  payerRequests: PayerRequest[];
  attempts: SubmissionAttempt[];
}

export interface AuthorizationFailure {
  code: string;
  message: string;
  /** Whether creating the same request again later may succeed (see failure-codes.ts). */
  retryable: boolean;
  details: Record<string, unknown>;
}

/** What `fail` takes: `retryable` defaults to the code's entry in failure-codes.ts. */
export type FailInput = Omit<AuthorizationFailure, 'retryable'> & { retryable?: boolean };

export type Requirements = RequirementSet & { version: number };

/** Everything persistence needs to store and rehydrate an authorization. Plain data only. */
export interface AuthorizationState {
  id: string;
  organizationId: string;
  environment: Environment;
  version: number;
  status: AuthorizationStatus;
  policy: AuthorizationPolicy;
  providerNpi: string;
  payer: Payer;
  templateSelection: TemplateSelection;
  routeId: string;
  portalAuthMode: PortalAuthMode;
  /** Pinned at create; items the payer portal reveals are added to the `portal` group. */
  questionnaire: QuestionnaireTemplate;
  documentRequirements: DocumentRequirement[];
  /**
   * Issues reported by the payer portal during processing. They block like engine issues until the next
   * customer edit, which clears them: the portal re-checks on the next processing run.
   */
  portalIssues: RequirementIssue[];
  questionnaireResponse: QuestionnaireResponse;
  questionnaireResponseVersion: number;
  attachments: Attachment[];
  attachmentVersion: number;
  requirements: Requirements;
  nextAction: NextAction | null;
  submission: Submission;
  outcome: Outcome | null;
  failure: AuthorizationFailure | null;
  finalBoundaryCrossedAt: Date | null;
  decisionDueAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  canceledAt: Date | null;
}

/** Same signature as `evaluateRequirements` in `src/requirements`; injected so the aggregate stays testable. */
export type RequirementsEvaluator = (
  template: QuestionnaireTemplate,
  documentRequirements: DocumentRequirement[],
  response: QuestionnaireResponse,
  attachedDocumentTypes: readonly string[],
) => RequirementSet;

export type IdPrefix = 'auth' | 'act' | 'att' | 'rs' | 'req' | 'sa';

/** Time, ids and the requirements engine come from outside so the aggregate stays deterministic. */
export interface AuthorizationContext {
  now: Date;
  newId: (prefix: IdPrefix) => string;
  evaluate: RequirementsEvaluator;
}

/** What a new case is created from: the fields of its state fixed at create, plus the first answers. */
export type CreateAuthorizationInput = Pick<
  AuthorizationState,
  | 'organizationId'
  | 'environment'
  | 'policy'
  | 'providerNpi'
  | 'payer'
  | 'templateSelection'
  | 'routeId'
  | 'portalAuthMode'
  | 'questionnaire'
  | 'documentRequirements'
> & {
  /** Ids are generated through `ctx.newId('auth')`, never supplied by callers. */
  id?: never;
  questionnaireResponse?: QuestionnaireResponse;
};

export interface AttachFileInput {
  fileId: string;
  documentTypes: string[];
  label: string;
  description: string | null;
}

export interface RevealPortalRequirementsInput {
  items?: QuestionnaireItemTemplate[];
  documents?: DocumentRequirement[];
  issues?: RequirementIssue[];
}

export interface RequestFinalApprovalInput {
  summary: Record<string, unknown>;
  warnings: string[];
  liveViewUrl: string | null;
}

export interface ResolvePayerRequestInput {
  requestId: string;
  attachmentIds: string[];
  resolutionNote: string | null;
}

export interface RequireManualInteractionInput {
  reason: string;
  description: string;
}
