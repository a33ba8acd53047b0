import { DomainError, VersionConflictError } from '../shared/domain-error';
import type { Environment } from '../shared/scope';
import type {
  DocumentRequirement,
  QuestionnaireItemTemplate,
  QuestionnaireResponse,
  QuestionnaireResponseItem,
  QuestionnaireTemplate,
} from '../requirements/questionnaire.types';
import {
  type AuthorizationCommand,
  assertTransition,
  invalidTransition,
  isCommandAllowed,
} from './authorization-status.state-machine';
import type { AuthorizationEvent, AuthorizationEventBase } from './authorization.events';
import { authorizationInvariantViolations } from './authorization.invariants';
import type {
  AttachFileInput,
  Attachment,
  AuthorizationContext,
  AuthorizationFailure,
  FailInput,
  AuthorizationPolicy,
  AuthorizationState,
  AuthorizationStatus,
  CreateAuthorizationInput,
  NextAction,
  NextActionType,
  Outcome,
  PayerDecision,
  PayerReceipt,
  RequestFinalApprovalInput,
  RequireManualInteractionInput,
  ResolvePayerRequestInput,
  Requirements,
  RevealPortalRequirementsInput,
  ReviewSnapshot,
  ReviewSnapshotCovers,
  Submission,
  SubmissionAttempt,
} from './authorization.types';
import { computeDecisionDueAt, isExpeditedRequest } from './decision-due-date';
import { isRetryableFailureCode } from './failure-codes';
import { canonicalJson, copySharing, deepCopy } from './deep-copy';
import { mergeQuestionnaireResponse, normalizeQuestionnaireResponse } from './questionnaire-response.merge';

export const PORTAL_GROUP_ID = 'portal';
export const PORTAL_GROUP_TITLE = 'Payer portal questions';

const FINAL_SUBMISSION_POLICIES: readonly string[] = ['automatic', 'requires_confirmation'];
const PAYER_DECISION_OUTCOMES: readonly string[] = ['approved', 'denied', 'modified', 'not_required'];

const ACTION_DESCRIPTIONS: Record<Exclude<NextActionType, 'complete_payer_interaction'>, string> = {
  provide_requirements: 'Answer the outstanding questions and attach the required documents.',
  advance_case: 'Confirm to let the service continue with the case.',
  approve_submission: 'Review the final submission and approve it to submit it to the payer.',
};

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type EventPayload = DistributiveOmit<AuthorizationEvent, keyof AuthorizationEventBase>;

type ConfirmableActionType = 'advance_case' | 'approve_submission';

/**
 * The prior-authorization case: collects requirements, gates the final payer submission behind the
 * customer's confirmation, and tracks receipt and decision. All status moves go through the transition
 * table; every mutation bumps `version` by exactly one and is all-or-nothing (a thrown error leaves the
 * aggregate untouched).
 */
export class Authorization {
  private s: AuthorizationState;
  private loadedVersion: number | null;
  private events: AuthorizationEvent[] = [];

  private constructor(state: AuthorizationState, persistedVersion: number | null) {
    this.s = state;
    this.loadedVersion = persistedVersion;
  }

  static create(input: CreateAuthorizationInput, ctx: AuthorizationContext): Authorization {
    // The API validates bodies too, but the policy decides whether payer submission needs approval, so the
    // domain refuses to guess.
    if (!FINAL_SUBMISSION_POLICIES.includes(input.policy?.finalSubmission)) {
      throw new DomainError('final_submission_policy_required', 'policy.finalSubmission is required.');
    }
    const now = new Date(ctx.now.getTime());
    const auth = new Authorization(
      {
        id: ctx.newId('auth'),
        organizationId: input.organizationId,
        environment: input.environment,
        version: 1,
        // Placeholder until the first requirement evaluation below picks the real initial status.
        status: 'requires_input',
        policy: deepCopy(input.policy),
        providerNpi: input.providerNpi,
        payer: deepCopy(input.payer),
        templateSelection: deepCopy(input.templateSelection),
        routeId: input.routeId,
        portalAuthMode: input.portalAuthMode,
        questionnaire: copySharing(input.questionnaire),
        documentRequirements: deepCopy(input.documentRequirements),
        portalIssues: [],
        questionnaireResponse: normalizeQuestionnaireResponse(input.questionnaireResponse),
        questionnaireResponseVersion: 1,
        attachments: [],
        attachmentVersion: 1,
        requirements: { questions: [], documents: [], issues: [], version: 1 },
        nextAction: null,
        submission: {
          reviewSnapshot: null,
          payerReceipt: null,
          decision: null,
          payerRequests: [],
          attempts: [],
        },
        outcome: null,
        failure: null,
        finalBoundaryCrossedAt: null,
        decisionDueAt: null,
        createdAt: now,
        updatedAt: new Date(now.getTime()),
        completedAt: null,
        canceledAt: null,
      },
      null,
    );
    auth.s.requirements = Object.assign(auth.evaluateRequirements(ctx), { version: 1 });
    const initial: AuthorizationStatus = auth.hasBlockers() ? 'requires_input' : 'requires_confirmation';
    auth.s.status = initial;
    auth.record(ctx, { type: 'authorization.created', status: initial });
    auth.openCustomerAction(initial === 'requires_input' ? 'provide_requirements' : 'advance_case', ctx);
    auth.assertInvariants();
    return auth;
  }

  /** Loads a stored state; the copy keeps the caller's object and the aggregate independent. */
  static rehydrate(state: AuthorizationState): Authorization {
    return Authorization.rehydrateOwned(deepCopy(state));
  }

  /**
   * Loads a state built for this aggregate alone (a repository's mapper builds one per row read) and never
   * touched by the caller again: the aggregate takes it over without the copy `rehydrate` makes, which
   * was the largest item of a read's own work (docs/performance.md).
   */
  static rehydrateOwned(state: AuthorizationState): Authorization {
    // Rows written before portal issues existed have no such column.
    state.portalIssues = state.portalIssues ?? [];
    return new Authorization(state, state.version);
  }

  /** A copy of the state; a shared frozen questionnaire template in it is the shared one (`copySharing`). */
  toState(): AuthorizationState {
    return copySharing(this.s);
  }

  /**
   * The state itself, not a copy, for code that reads it only to build something new at once (presenters,
   * row mappers): such code must neither change it nor keep it. `toState()` is for anything else.
   */
  readState(): Readonly<AuthorizationState> {
    return this.s;
  }

  get id(): string {
    return this.s.id;
  }
  get version(): number {
    return this.s.version;
  }
  get status(): AuthorizationStatus {
    return this.s.status;
  }
  get organizationId(): string {
    return this.s.organizationId;
  }
  get environment(): Environment {
    return this.s.environment;
  }
  get nextAction(): NextAction | null {
    return deepCopy(this.s.nextAction);
  }
  get requirements(): Requirements {
    return deepCopy(this.s.requirements);
  }
  get policy(): AuthorizationPolicy {
    return deepCopy(this.s.policy);
  }
  get questionnaire(): QuestionnaireTemplate {
    return deepCopy(this.s.questionnaire);
  }
  get questionnaireResponse(): QuestionnaireResponse {
    return deepCopy(this.s.questionnaireResponse);
  }
  get attachments(): Attachment[] {
    return deepCopy(this.s.attachments);
  }
  get submission(): Submission {
    return deepCopy(this.s.submission);
  }
  get finalBoundaryCrossedAt(): Date | null {
    return deepCopy(this.s.finalBoundaryCrossedAt);
  }
  get outcome(): Outcome | null {
    return this.s.outcome;
  }
  get failure(): AuthorizationFailure | null {
    return deepCopy(this.s.failure);
  }
  get decisionDueAt(): Date | null {
    return deepCopy(this.s.decisionDueAt);
  }

  /** Version at load time (null for a new aggregate); persistence updates `WHERE version = persistedVersion`. */
  get persistedVersion(): number | null {
    return this.loadedVersion;
  }

  markPersisted(): void {
    this.loadedVersion = this.s.version;
  }

  /** Returns the events recorded since the last pull and forgets them; call after a successful save. */
  pullEvents(): AuthorizationEvent[] {
    const pulled = this.events;
    this.events = [];
    return pulled;
  }

  /** The If-Match check use cases run before any command. */
  assertVersion(expected: number): void {
    if (expected !== this.s.version) throw new VersionConflictError(expected, this.s.version);
  }

  // ---- customer edits -------------------------------------------------------------------------------

  patchAnswers(items: QuestionnaireResponseItem[], ctx: AuthorizationContext): void {
    this.assertEditable();
    this.edit(ctx, () => {
      this.s.questionnaireResponse = mergeQuestionnaireResponse(this.s.questionnaireResponse, items);
      // Every patch is a write to the answer set, even one that repeats the stored answers.
      this.s.questionnaireResponseVersion += 1;
      this.record(ctx, {
        type: 'authorization.answers_updated',
        questionnaireResponseVersion: this.s.questionnaireResponseVersion,
      });
    });
  }

  attachFile(input: AttachFileInput, ctx: AuthorizationContext): Attachment {
    this.assertEditable();
    const attachment: Attachment = {
      id: ctx.newId('att'),
      fileId: input.fileId,
      createdAt: new Date(ctx.now.getTime()),
      documentTypes: [...new Set(input.documentTypes)],
      label: input.label,
      description: input.description ?? null,
    };
    this.edit(ctx, () => {
      this.s.attachments.push(attachment);
      this.s.attachmentVersion += 1;
      this.record(ctx, {
        type: 'authorization.attachment_added',
        attachmentId: attachment.id,
        fileId: attachment.fileId,
      });
    });
    return deepCopy(attachment);
  }

  detachAttachment(attachmentId: string, ctx: AuthorizationContext): void {
    this.assertEditable();
    const attachment = this.s.attachments.find((a) => a.id === attachmentId);
    if (attachment === undefined) {
      throw new DomainError('attachment_not_found', 'The attachment does not exist on this authorization.', {
        attachmentId,
      });
    }
    this.edit(ctx, () => {
      this.s.attachments = this.s.attachments.filter((a) => a.id !== attachmentId);
      this.s.attachmentVersion += 1;
      this.record(ctx, {
        type: 'authorization.attachment_removed',
        attachmentId,
        fileId: attachment.fileId,
      });
    });
  }

  // ---- customer confirmation and cancellation -----------------------------------------------------

  confirm(nextActionId: string | undefined | null, ctx: AuthorizationContext): ConfirmableActionType {
    return this.confirmAction(nextActionId, ctx, null);
  }

  /**
   * The legacy "resolve action" (decision 0032): the payer's request is answered by attachments already on the
   * case, then the case moves on exactly as a confirm of its current action would, in the same mutation.
   */
  resolvePayerRequest(input: ResolvePayerRequestInput, ctx: AuthorizationContext): ConfirmableActionType {
    const request = this.s.submission.payerRequests.find((r) => r.id === input.requestId);
    if (request === undefined) {
      throw new DomainError('action_not_found', 'The action item does not exist on this authorization.', {
        actionId: input.requestId,
      });
    }
    if (request.status !== 'open') {
      throw new DomainError('action_not_open', 'The action item is already resolved.', {
        actionId: request.id,
        status: request.status,
      });
    }
    const named = input.attachmentIds.map((attachmentId) => {
      const attachment = this.s.attachments.find((a) => a.id === attachmentId);
      if (attachment === undefined) {
        throw new DomainError(
          'attachment_not_found',
          'The attachment does not exist on this authorization.',
          {
            attachmentId,
          },
        );
      }
      return attachment;
    });
    if (!named.some((a) => a.documentTypes.includes(request.documentType))) {
      throw new DomainError(
        'requirements_not_satisfied',
        'The attachments do not provide the requested documents.',
        { actionId: request.id, requestedDocuments: [request.documentType] },
      );
    }
    if (this.hasBlockers() || this.s.nextAction === null) {
      throw new DomainError('requirements_not_satisfied', 'Outstanding requirements prevent confirmation.', {
        requirementsVersion: this.s.requirements.version,
      });
    }
    return this.confirmAction(this.s.nextAction.id, ctx, input);
  }

  private confirmAction(
    nextActionId: string | undefined | null,
    ctx: AuthorizationContext,
    resolution: ResolvePayerRequestInput | null,
  ): ConfirmableActionType {
    if (nextActionId === undefined || nextActionId === null || nextActionId === '') {
      throw new DomainError('next_action_required', 'nextActionId is required to confirm.');
    }
    const action = this.s.nextAction;
    if (!isCommandAllowed(this.s.status, 'confirm')) {
      if (action?.type === 'provide_requirements' && action.id === nextActionId) {
        throw new DomainError(
          'next_action_not_confirmable',
          'Requirements are provided by answering questions and attaching files, not by confirming.',
          { nextActionId, nextActionType: action.type },
        );
      }
      throw new DomainError(
        'authorization_not_confirmable',
        'The authorization is not awaiting confirmation.',
        {
          status: this.s.status,
        },
      );
    }
    const snapshot = this.s.submission.reviewSnapshot;
    if (action === null || action.id !== nextActionId) {
      if (snapshot !== null && snapshot.nextActionId === nextActionId && snapshot.status === 'stale') {
        throw new DomainError(
          'review_stale',
          'The authorization changed after the final review was generated.',
          {
            reviewSnapshotId: snapshot.id,
          },
        );
      }
      throw new DomainError('next_action_mismatch', 'nextActionId is not the current next action.', {
        currentNextActionId: action?.id ?? null,
      });
    }
    if (this.hasBlockers()) {
      throw new DomainError('requirements_not_satisfied', 'Outstanding requirements prevent confirmation.', {
        requirementsVersion: this.s.requirements.version,
      });
    }
    const type = action.type;
    if (type !== 'advance_case' && type !== 'approve_submission') {
      throw new DomainError('next_action_not_confirmable', 'This next action cannot be confirmed.', {
        nextActionId,
        nextActionType: type,
      });
    }
    if (type === 'approve_submission' && !this.snapshotCoversCurrent(snapshot, action)) {
      throw new DomainError('review_stale', 'The final review no longer covers the current authorization.', {
        reviewSnapshotId: snapshot?.id ?? null,
      });
    }

    this.mutate(ctx, () => {
      if (type === 'approve_submission' && snapshot !== null) {
        // Irreversible: from here on the payer may receive the submission.
        this.s.submission.reviewSnapshot = { ...snapshot, status: 'approved' };
        this.s.finalBoundaryCrossedAt = new Date(ctx.now.getTime());
        this.startSubmissionAttempt(ctx);
        this.record(ctx, { type: 'authorization.final_boundary_crossed' });
      }
      this.s.nextAction = null;
      this.resolveOpenPayerRequests(ctx, resolution);
      this.record(ctx, { type: 'authorization.confirmed', nextActionId, actionType: type });
      this.moveTo('confirm', 'processing', ctx);
    });
    return type;
  }

  cancel(ctx: AuthorizationContext): void {
    if (!isCommandAllowed(this.s.status, 'cancel')) {
      throw new DomainError(
        'authorization_not_cancelable',
        'The authorization is already completed or canceled.',
        {
          status: this.s.status,
        },
      );
    }
    const from = this.s.status;
    this.mutate(ctx, () => {
      this.s.nextAction = null;
      this.staleCurrentSnapshot();
      this.s.canceledAt = new Date(ctx.now.getTime());
      // Receipt and decision stay: cancelling never reverses what the payer already has.
      this.record(ctx, { type: 'authorization.canceled', from });
      this.moveTo('cancel', 'canceled', ctx);
    });
  }

  // ---- pipeline ---------------------------------------------------------------------------------------

  revealPortalRequirements(input: RevealPortalRequirementsInput, ctx: AuthorizationContext): void {
    this.requireCommand('reveal_portal_requirements', 'requires_input');
    // After the boundary the submission is on its way; anything new must go through a manual interaction.
    if (this.s.finalBoundaryCrossedAt !== null) {
      throw invalidTransition(
        this.s.status,
        'requires_input',
        'reveal_portal_requirements',
        'final_boundary_crossed',
      );
    }
    const items = input.items ?? [];
    const documents = input.documents ?? [];
    const issues = input.issues ?? [];
    this.mutate(ctx, () => {
      for (const item of items) this.upsertPortalItem(item);
      for (const document of documents) this.upsertDocumentRequirement(document);
      this.s.portalIssues.push(...deepCopy(issues));
      this.record(ctx, {
        type: 'authorization.portal_requirements_revealed',
        itemCount: items.length,
        documentCount: documents.length,
        issueCount: issues.length,
      });
      this.settleOnRequirements('reveal_portal_requirements', ctx);
    });
  }

  requestFinalApproval(input: RequestFinalApprovalInput, ctx: AuthorizationContext): ReviewSnapshot {
    this.requireCommand('request_final_approval', 'requires_confirmation');
    if (this.s.policy.finalSubmission !== 'requires_confirmation') {
      throw invalidTransition(
        this.s.status,
        'requires_confirmation',
        'request_final_approval',
        'policy_automatic',
      );
    }
    if (this.s.finalBoundaryCrossedAt !== null) {
      throw invalidTransition(
        this.s.status,
        'requires_confirmation',
        'request_final_approval',
        'final_boundary_crossed',
      );
    }
    const created = this.mutate(ctx, () => {
      const actionId = ctx.newId('act');
      const snapshot: ReviewSnapshot = {
        id: ctx.newId('rs'),
        generatedAt: new Date(ctx.now.getTime()),
        covers: this.currentCovers(),
        status: 'current',
        kind: 'final_submission',
        summary: deepCopy(input.summary),
        questionnaireResponse: deepCopy(this.s.questionnaireResponse),
        attachments: deepCopy(this.s.attachments),
        warnings: [...input.warnings],
        liveViewUrl: input.liveViewUrl,
        nextActionId: actionId,
      };
      this.s.submission.reviewSnapshot = snapshot;
      this.openAction(
        {
          id: actionId,
          type: 'approve_submission',
          description: ACTION_DESCRIPTIONS.approve_submission,
          owner: 'customer',
          reviewSnapshotId: snapshot.id,
          resolution: null,
        },
        ctx,
      );
      this.record(ctx, {
        type: 'authorization.final_approval_requested',
        reviewSnapshotId: snapshot.id,
        nextActionId: actionId,
      });
      this.moveTo('request_final_approval', 'requires_confirmation', ctx);
      return snapshot;
    });
    return deepCopy(created);
  }

  /**
   * Policy automatic: the pipeline marks the boundary right before submitting. Idempotent so a retried job
   * that already crossed it does not fail (and does not bump the version).
   */
  crossFinalBoundary(ctx: AuthorizationContext): void {
    this.requireCommand('cross_final_boundary', 'processing');
    if (this.s.policy.finalSubmission !== 'automatic') {
      throw invalidTransition(
        this.s.status,
        'processing',
        'cross_final_boundary',
        'policy_requires_confirmation',
      );
    }
    if (this.s.finalBoundaryCrossedAt !== null) return;
    this.mutate(ctx, () => {
      this.s.finalBoundaryCrossedAt = new Date(ctx.now.getTime());
      this.startSubmissionAttempt(ctx);
      this.record(ctx, { type: 'authorization.final_boundary_crossed' });
      this.moveTo('cross_final_boundary', 'processing', ctx);
    });
  }

  requireManualInteraction(input: RequireManualInteractionInput, ctx: AuthorizationContext): void {
    this.requireCommand('require_manual_interaction', 'requires_action');
    this.mutate(ctx, () => {
      const action = this.openAction(
        {
          id: ctx.newId('act'),
          type: 'complete_payer_interaction',
          description: input.description,
          owner: 'operator',
          reviewSnapshotId: null,
          resolution: { kind: 'manual_handoff', reason: input.reason },
        },
        ctx,
      );
      this.record(ctx, {
        type: 'authorization.manual_interaction_required',
        nextActionId: action.id,
        reason: input.reason,
      });
      this.moveTo('require_manual_interaction', 'requires_action', ctx);
    });
  }

  resumeAfterManualInteraction(ctx: AuthorizationContext): void {
    this.requireCommand('resume_after_manual_interaction', 'processing');
    this.mutate(ctx, () => {
      this.s.nextAction = null;
      this.record(ctx, { type: 'authorization.manual_interaction_resumed' });
      this.moveTo('resume_after_manual_interaction', 'processing', ctx);
    });
  }

  recordReceipt(receipt: PayerReceipt, ctx: AuthorizationContext): void {
    this.requireCommand('record_receipt', 'waiting_on_payer');
    // The payer can only hold a submission that was approved (or automatically released).
    if (this.s.finalBoundaryCrossedAt === null) {
      throw invalidTransition(
        this.s.status,
        'waiting_on_payer',
        'record_receipt',
        'final_boundary_not_crossed',
      );
    }
    this.mutate(ctx, () => {
      this.s.submission.payerReceipt = deepCopy(receipt);
      this.updateLatestAttempt(['pending'], {
        status: 'accepted',
        acceptedAt: new Date(new Date(receipt.receivedAt).getTime()),
        submissionReference: receipt.referenceNumber,
      });
      const due = computeDecisionDueAt(receipt.receivedAt, isExpeditedRequest(this.s.questionnaireResponse));
      this.s.decisionDueAt = due;
      this.record(ctx, { type: 'authorization.receipt_recorded', decisionDueAt: new Date(due.getTime()) });
      this.moveTo('record_receipt', 'waiting_on_payer', ctx);
    });
  }

  recordDecision(decision: PayerDecision, ctx: AuthorizationContext): void {
    this.requireCommand('record_decision', 'completed');
    if (!PAYER_DECISION_OUTCOMES.includes(decision.outcome)) {
      throw invalidTransition(this.s.status, 'completed', 'record_decision', 'unknown_outcome');
    }
    if (decision.outcome === 'denied' && decision.denialReasons.length === 0) {
      throw invalidTransition(this.s.status, 'completed', 'record_decision', 'denial_reasons_required');
    }
    this.mutate(ctx, () => {
      this.s.submission.decision = deepCopy(decision);
      this.updateLatestAttempt(['accepted'], {
        status: 'confirmed',
        confirmedAt: new Date(new Date(decision.receivedAt).getTime()),
      });
      this.s.outcome = decision.outcome;
      this.s.completedAt = new Date(ctx.now.getTime());
      this.record(ctx, { type: 'authorization.decision_recorded', outcome: decision.outcome });
      this.moveTo('record_decision', 'completed', ctx);
    });
  }

  /**
   * The payer wants another document after receipt. The case goes round again: the customer provides it,
   * confirms, and the pipeline (re-)crosses the final boundary; the earlier receipt stays as evidence.
   */
  requestMoreInformation(document: DocumentRequirement, ctx: AuthorizationContext): void {
    this.requireCommand('request_more_information', 'requires_input');
    this.mutate(ctx, () => {
      this.upsertDocumentRequirement(document);
      this.s.submission.payerRequests.push({
        id: ctx.newId('req'),
        status: 'open',
        documentType: document.type,
        documentLabel: document.label,
        message: document.message,
        createdAt: new Date(ctx.now.getTime()),
        resolutionNote: null,
        resolvedAt: null,
        attachmentIds: [],
      });
      this.s.finalBoundaryCrossedAt = null;
      this.s.submission.reviewSnapshot = null;
      this.s.decisionDueAt = null;
      this.record(ctx, { type: 'authorization.more_information_requested', documentType: document.type });
      this.settleOnRequirements('request_more_information', ctx);
    });
  }

  fail(input: FailInput, ctx: AuthorizationContext): void {
    this.requireCommand('fail', 'completed');
    const failure: AuthorizationFailure = {
      code: input.code,
      message: input.message,
      retryable: input.retryable ?? isRetryableFailureCode(input.code),
      details: deepCopy(input.details),
    };
    this.mutate(ctx, () => {
      this.s.failure = failure;
      this.updateLatestAttempt(['pending', 'accepted'], {
        status: 'failed',
        errorCode: failure.code,
        errorMessage: failure.message,
      });
      this.s.outcome = 'failed';
      this.s.completedAt = new Date(ctx.now.getTime());
      this.s.nextAction = null;
      this.record(ctx, { type: 'authorization.failed', code: failure.code });
      this.moveTo('fail', 'completed', ctx);
    });
  }

  // ---- internals --------------------------------------------------------------------------------------

  /** All-or-nothing: bumps the version, applies the change, checks invariants, rolls back on any error. */
  private mutate<T>(ctx: AuthorizationContext, change: () => T): T {
    const before = deepCopy(this.s);
    const eventCount = this.events.length;
    try {
      this.s.version += 1;
      this.s.updatedAt = new Date(ctx.now.getTime());
      const result = change();
      this.assertInvariants();
      return result;
    } catch (error) {
      this.s = before;
      this.events.length = eventCount;
      throw error;
    }
  }

  /** Shared tail of every customer edit: recompute, and hand the customer a fresh action. */
  private edit(ctx: AuthorizationContext, apply: () => void): void {
    this.mutate(ctx, () => {
      apply();
      // Portal findings describe what the portal saw; the next processing run re-checks them.
      this.s.portalIssues = [];
      this.staleCurrentSnapshot();
      this.settleOnRequirements('edit', ctx);
    });
  }

  private assertEditable(): void {
    if (!isCommandAllowed(this.s.status, 'edit')) {
      throw new DomainError(
        'authorization_not_mutable',
        'The authorization cannot be edited in its current state.',
        {
          status: this.s.status,
        },
      );
    }
  }

  private requireCommand(command: AuthorizationCommand, intendedTo: AuthorizationStatus): void {
    if (!isCommandAllowed(this.s.status, command))
      throw invalidTransition(this.s.status, intendedTo, command);
  }

  /**
   * Recomputes requirements, then blockers → requires_input with provide_requirements, none →
   * requires_confirmation with advance_case. The action is always new so it records the current versions
   * and supersedes whatever was open.
   */
  private settleOnRequirements(command: AuthorizationCommand, ctx: AuthorizationContext): void {
    this.recomputeRequirements(ctx);
    const to: AuthorizationStatus = this.hasBlockers() ? 'requires_input' : 'requires_confirmation';
    this.openCustomerAction(to === 'requires_input' ? 'provide_requirements' : 'advance_case', ctx);
    this.moveTo(command, to, ctx);
  }

  private recomputeRequirements(ctx: AuthorizationContext): void {
    const next = this.evaluateRequirements(ctx);
    const { version, ...current } = this.s.requirements;
    if (canonicalJson(next) === canonicalJson(current)) return;
    this.s.requirements = Object.assign(next, { version: version + 1 });
    this.record(ctx, { type: 'authorization.requirements_changed', requirementsVersion: version + 1 });
  }

  private evaluateRequirements(ctx: AuthorizationContext): Omit<Requirements, 'version'> {
    const attachedTypes = [...new Set(this.s.attachments.flatMap((a) => a.documentTypes))];
    // Copies, so an evaluator can never reach into private state (a shared template cannot be changed anyway).
    const set = ctx.evaluate(
      copySharing(this.s.questionnaire),
      deepCopy(this.s.documentRequirements),
      deepCopy(this.s.questionnaireResponse),
      attachedTypes,
    );
    return deepCopy({
      questions: set.questions,
      documents: set.documents,
      issues: [...set.issues, ...this.s.portalIssues],
    });
  }

  private hasBlockers(): boolean {
    const r = this.s.requirements;
    return r.questions.length + r.documents.length + r.issues.length > 0;
  }

  private moveTo(command: AuthorizationCommand, to: AuthorizationStatus, ctx: AuthorizationContext): void {
    const from = this.s.status;
    assertTransition(from, command, to);
    if (from === to) return;
    this.s.status = to;
    this.record(ctx, { type: 'authorization.status_changed', from, to });
  }

  private openCustomerAction(type: 'provide_requirements' | 'advance_case', ctx: AuthorizationContext): void {
    this.openAction(
      {
        id: ctx.newId('act'),
        type,
        description: ACTION_DESCRIPTIONS[type],
        owner: 'customer',
        reviewSnapshotId: null,
        resolution: null,
      },
      ctx,
    );
  }

  private openAction(
    action: Pick<NextAction, 'id' | 'type' | 'description' | 'owner' | 'reviewSnapshotId' | 'resolution'>,
    ctx: AuthorizationContext,
  ): NextAction {
    // Assigned: a literal that adds members after a spread gets a new hidden class per object on Node 20's V8.
    const opened: NextAction = Object.assign({}, action, {
      authorizationVersion: this.s.version,
      requirementsVersion: this.s.requirements.version,
      createdAt: new Date(ctx.now.getTime()),
      expiresAt: null,
    });
    this.s.nextAction = opened;
    this.record(ctx, {
      type: 'authorization.next_action_opened',
      nextActionId: opened.id,
      actionType: opened.type,
    });
    return opened;
  }

  private startSubmissionAttempt(ctx: AuthorizationContext): void {
    this.s.submission.attempts.push({
      id: ctx.newId('sa'),
      status: 'pending',
      startedAt: new Date(ctx.now.getTime()),
      submissionReference: null,
      acceptedAt: null,
      confirmedAt: null,
      errorCode: null,
      errorMessage: null,
    });
  }

  /** Cases stored before attempts were recorded have none: nothing to update then. */
  private updateLatestAttempt(
    from: SubmissionAttempt['status'][],
    change: Partial<Omit<SubmissionAttempt, 'id' | 'startedAt'>>,
  ): void {
    const attempts = this.s.submission.attempts;
    const latest = attempts[attempts.length - 1];
    if (latest === undefined || !from.includes(latest.status)) return;
    attempts[attempts.length - 1] = { ...latest, ...change };
  }

  /**
   * A confirm moves the case on only without blockers, so every requested document is attached by then: the
   * payer's open requests are answered. An explicit resolve names its request's note and attachments.
   */
  private resolveOpenPayerRequests(
    ctx: AuthorizationContext,
    resolution: ResolvePayerRequestInput | null,
  ): void {
    this.s.submission.payerRequests = this.s.submission.payerRequests.map((request) => {
      if (request.status !== 'open') return request;
      const explicit = resolution !== null && resolution.requestId === request.id;
      return {
        ...request,
        status: 'resolved',
        resolvedAt: new Date(ctx.now.getTime()),
        resolutionNote: explicit ? resolution.resolutionNote : null,
        attachmentIds: explicit ? [...resolution.attachmentIds] : [],
      };
    });
  }

  private staleCurrentSnapshot(): void {
    const snapshot = this.s.submission.reviewSnapshot;
    if (snapshot?.status === 'current') this.s.submission.reviewSnapshot = { ...snapshot, status: 'stale' };
  }

  private currentCovers(): ReviewSnapshotCovers {
    return {
      authorizationVersion: this.s.version,
      requirementsVersion: this.s.requirements.version,
      questionnaireResponseVersion: this.s.questionnaireResponseVersion,
      attachmentVersion: this.s.attachmentVersion,
    };
  }

  private snapshotCoversCurrent(snapshot: ReviewSnapshot | null, action: NextAction): boolean {
    if (snapshot === null || snapshot.status !== 'current' || snapshot.id !== action.reviewSnapshotId)
      return false;
    return canonicalJson(snapshot.covers) === canonicalJson(this.currentCovers());
  }

  /**
   * A revealed item replaces an existing definition of the same linkId, else joins the portal group. The
   * questionnaire is replaced, never changed in place: `readState()` hands it to presenters, whose template
   * compilation is memoised per object.
   */
  private upsertPortalItem(item: QuestionnaireItemTemplate): void {
    const copy = deepCopy(item);
    const questionnaire = deepCopy(this.s.questionnaire);
    this.s.questionnaire = questionnaire;
    for (const group of questionnaire.groups) {
      const index = group.items.findIndex((i) => i.linkId === item.linkId);
      if (index >= 0) {
        group.items[index] = copy;
        return;
      }
    }
    let portal = questionnaire.groups.find((g) => g.id === PORTAL_GROUP_ID);
    if (portal === undefined) {
      portal = { id: PORTAL_GROUP_ID, title: PORTAL_GROUP_TITLE, items: [] };
      questionnaire.groups.push(portal);
    }
    portal.items.push(copy);
  }

  /** One requirement per document type; a newer request (e.g. unconditional) replaces the older one. */
  private upsertDocumentRequirement(document: DocumentRequirement): void {
    const copy = deepCopy(document);
    const index = this.s.documentRequirements.findIndex((d) => d.type === document.type);
    if (index >= 0) this.s.documentRequirements[index] = copy;
    else this.s.documentRequirements.push(copy);
  }

  private record(ctx: AuthorizationContext, payload: EventPayload): void {
    // Assigned, not spread then extended: V8 gives such a literal a new hidden class on every call, and these
    // objects are made on every command (docs/performance.md, twentieth round), as the requirements above are.
    this.events.push(
      Object.assign({}, payload, {
        authorizationId: this.s.id,
        organizationId: this.s.organizationId,
        environment: this.s.environment,
        version: this.s.version,
        occurredAt: new Date(ctx.now.getTime()),
      }) as AuthorizationEvent,
    );
  }

  private assertInvariants(): void {
    const violations = authorizationInvariantViolations(this.s);
    // A plain Error on purpose: a violation is a bug in the aggregate, never a client mistake.
    if (violations.length > 0) throw new Error(`Authorization invariants violated: ${violations.join('; ')}`);
  }
}
