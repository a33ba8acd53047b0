import {
  type PayerDecision,
  type PayerReceipt,
  type PortalAuthMode,
  type TemplateSelection,
} from '../authorization/authorization.types';
import {
  type DocumentRequirement,
  type QuestionnaireItemTemplate,
  type QuestionnaireResponse,
  type RequirementIssue,
} from '../requirements/questionnaire.types';
import { type Environment } from '../shared/scope';

/** An attached document as the portal needs it: what it satisfies and where its bytes are. */
export interface PortalCaseAttachment {
  attachmentId: string;
  fileId: string;
  documentTypes: string[];
  label: string;
  contentType: string;
  /** The blob key of the file's verified content (`fileBlobKey`), not its upload staging key. */
  storageKey: string;
}

/** A plain, read-only view of one authorization, everything the payer portal needs and nothing more. */
export interface PortalCase {
  authorizationId: string;
  /** Whose stored portal credentials sign in (decision 0021). */
  organizationId: string;
  environment: Environment;
  routeId: string;
  templateSelection: TemplateSelection;
  providerNpi: string;
  questionnaireResponse: QuestionnaireResponse;
  attachments: PortalCaseAttachment[];
  portalAuthMode: PortalAuthMode;
  /** The payer's receipt of the current submission, once there is one (decisions are due relative to it). */
  receipt: { referenceNumber: string | null; receivedAt: Date } | null;
}

/** What the portal asks for beyond the route's template. */
export interface PortalDiscovery {
  items: QuestionnaireItemTemplate[];
  documents: DocumentRequirement[];
  issues: RequirementIssue[];
}

export interface PortalValidation {
  /** Severity `error` blocks the case; warnings and info are shown in the final review. */
  issues: RequirementIssue[];
}

export interface PreparedSubmission {
  summary: Record<string, unknown>;
  warnings: string[];
  liveViewUrl: string | null;
}

/**
 * What a portal run captured as proof (decision 0017: the confirmation the payer showed, its decision letter),
 * for the caller to store as files. Bytes only: the portal adapter stores nothing itself.
 */
export interface PortalEvidence {
  kind:
    'step_screenshot' | 'confirmation_html' | 'confirmation_image' | 'confirmation_pdf' | 'decision_letter';
  /** The portal step it was captured after, e.g. `signed_in`, `review`, `confirmation`. */
  step: string;
  contentType: string;
  bytes: Uint8Array;
  capturedAt: Date;
}

export type SubmitResult =
  | { receipt: PayerReceipt; evidence?: PortalEvidence[] }
  | { needsHuman: { reason: string; description: string }; evidence?: PortalEvidence[] };

export type DecisionPoll =
  | { state: 'pending' }
  | { state: 'decided'; decision: PayerDecision; evidence?: PortalEvidence[] }
  | { state: 'more_information'; document: DocumentRequirement };

/**
 * A submission the payer already holds, found by `findSubmission`: its receipt and what the portal showed
 * of it (the request's status or confirmation page), stored like a submit's evidence (decision 0020).
 */
export interface FoundSubmission {
  receipt: PayerReceipt;
  evidence?: PortalEvidence[];
}

export interface SubmissionLookup {
  /** The key the submission was (or would have been) made with. */
  idempotencyKey: string;
  /** A reference number an operator observed at the payer, when reconciling a manual handoff. */
  referenceNumber?: string;
}

/**
 * The payer's portal. Every call may throw PayerPortalError; all other errors are treated as bugs.
 * `submit` must be idempotent under `idempotencyKey` where the payer allows it; `findSubmission` is the
 * reconciliation read used when it is unknown whether a submission reached the payer.
 */
export interface PayerPortal {
  discover(portalCase: PortalCase): Promise<PortalDiscovery>;
  validate(portalCase: PortalCase): Promise<PortalValidation>;
  prepareSubmission(portalCase: PortalCase): Promise<PreparedSubmission>;
  submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult>;
  findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<FoundSubmission | null>;
  pollDecision(portalCase: PortalCase): Promise<DecisionPoll>;
}

/**
 * A failure at the payer. Transient ones (outage, timeout, rate limit) are retried by the worker; permanent
 * ones (the payer rejects the case) fail the authorization.
 */
export class PayerPortalError extends Error {
  readonly code: string;
  readonly transient: boolean;
  readonly details: Record<string, unknown>;

  constructor(
    code: string,
    message: string,
    options: { transient: boolean; details?: Record<string, unknown> },
  ) {
    super(message);
    this.name = 'PayerPortalError';
    this.code = code;
    this.transient = options.transient;
    this.details = options.details ?? {};
  }
}

export const isPayerPortalError = (error: unknown): error is PayerPortalError =>
  error instanceof PayerPortalError;
