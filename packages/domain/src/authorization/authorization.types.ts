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

export type Outcome = 'approved' | 'denied' | 'modified' | 'not_required' | 'failed';
export type FinalSubmissionPolicy = 'automatic' | 'requires_confirmation';
export type PortalAuthMode = 'automated' | 'customer_login';
export type ServiceType = 'inpatient' | 'outpatient' | 'drug';
export type ServiceCodeSystem = 'hcpcs' | 'cpt' | 'ndc';

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

export type NextActionType =
  'provide_requirements' | 'advance_case' | 'approve_submission' | 'complete_payer_interaction';

export type NextActionOwner = 'customer' | 'operator';

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

export type ReviewSnapshotStatus = 'current' | 'stale' | 'approved';

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

export interface Submission {
  reviewSnapshot: ReviewSnapshot | null;
  payerReceipt: PayerReceipt | null;
  decision: PayerDecision | null;
}

export interface AuthorizationFailure {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

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

export type IdPrefix = 'auth' | 'act' | 'att' | 'rs';

/** Time, ids and the requirements engine come from outside so the aggregate stays deterministic. */
export interface AuthorizationContext {
  now: Date;
  newId: (prefix: IdPrefix) => string;
  evaluate: RequirementsEvaluator;
}

export interface CreateAuthorizationInput {
  /** Ids are generated through `ctx.newId('auth')`, never supplied by callers. */
  id?: never;
  organizationId: string;
  environment: Environment;
  policy: AuthorizationPolicy;
  providerNpi: string;
  payer: Payer;
  templateSelection: TemplateSelection;
  routeId: string;
  portalAuthMode: PortalAuthMode;
  questionnaire: QuestionnaireTemplate;
  documentRequirements: DocumentRequirement[];
  questionnaireResponse?: QuestionnaireResponse;
}

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

export interface RequireManualInteractionInput {
  reason: string;
  description: string;
}
