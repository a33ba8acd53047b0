import { VersionConflictError } from '../shared/domain-error';
import { type Environment } from '../shared/scope';
import { VersionedAggregate } from '../shared/versioned-aggregate';
import {
  manualHandoffInvalidState,
  type ManualHandoffOperation,
  type ManualHandoffResult,
  type ManualHandoffStateName,
  transitionManualHandoff,
} from './manual-handoff-state.state-machine';

export const REPORTED_OUTCOMES = [
  'submitted',
  'decision_observed',
  'not_required_observed',
  'follow_up_required_observed',
] as const;
export type ReportedOutcome = (typeof REPORTED_OUTCOMES)[number];

export const UNABLE_TO_COMPLETE_REASONS = [
  'channel_blocked',
  'missing_information',
  'credential_or_mfa_issue',
  'channel_outage',
  'operator_abandoned_case',
  'wrong_route',
  'other',
] as const;
export type UnableToCompleteReason = (typeof UNABLE_TO_COMPLETE_REASONS)[number];

export const RECONCILIATION_STATES = ['pending', 'confirmed', 'not_found'] as const;
export type ReconciliationState = (typeof RECONCILIATION_STATES)[number];

export interface Reconciliation {
  id: string;
  state: ReconciliationState;
}

/** How long a handoff may stay open before it expires; the worker runs `expire` at `expiresAt`. */
export const MANUAL_HANDOFF_TTL_MS = 60 * 60 * 1000;

export interface ManualHandoffState {
  id: string;
  organizationId: string;
  environment: Environment;
  authorizationId: string;
  /** The complete_payer_interaction action this handoff resolves: the interaction lineage. */
  interactionActionId: string;
  state: ManualHandoffStateName;
  result: ManualHandoffResult | null;
  runtimeSessionId: string | null;
  reportedOutcome: ReportedOutcome | null;
  observedReferenceNumber: string | null;
  operatorNotes: string | null;
  unableReason: UnableToCompleteReason | null;
  revokeReason: string | null;
  revokeNotes: string | null;
  reconciliation: Reconciliation | null;
  expiresAt: Date;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  activatedAt: Date | null;
  closedAt: Date | null;
}

export interface CreateManualHandoffInput {
  organizationId: string;
  environment: Environment;
  authorizationId: string;
  interactionActionId: string;
}

export interface ManualHandoffContext {
  now: Date;
  newId(prefix: 'mh' | 'rec'): string;
}

export interface CompletionReport {
  reportedOutcome: ReportedOutcome;
  observedReferenceNumber: string | null;
  operatorNotes: string | null;
}

export type ManualHandoffEvent =
  | { type: 'manual_handoff.offered'; manualHandoffId: string; authorizationId: string; occurredAt: Date }
  | { type: 'manual_handoff.activated'; manualHandoffId: string; authorizationId: string; occurredAt: Date }
  | {
      type: 'manual_handoff.completion_reported';
      manualHandoffId: string;
      authorizationId: string;
      reportedOutcome: ReportedOutcome;
      occurredAt: Date;
    }
  | {
      type: 'manual_handoff.closed';
      manualHandoffId: string;
      authorizationId: string;
      result: ManualHandoffResult;
      occurredAt: Date;
    }
  | {
      type: 'manual_handoff.reconciled';
      manualHandoffId: string;
      authorizationId: string;
      reconciliationState: 'confirmed' | 'not_found';
      occurredAt: Date;
    };

/**
 * A one-way human ownership episode for payer-interaction work. While it is open (or its reconciliation is
 * pending) automation does not act on that interaction lineage; what the operator reports is a claim that
 * reconciliation must confirm before any payer truth is projected onto the authorization.
 */
export class ManualHandoff extends VersionedAggregate<ManualHandoffState, ManualHandoffEvent> {
  static create(input: CreateManualHandoffInput, ctx: ManualHandoffContext): ManualHandoff {
    const handoff = new ManualHandoff(
      {
        id: ctx.newId('mh'),
        organizationId: input.organizationId,
        environment: input.environment,
        authorizationId: input.authorizationId,
        interactionActionId: input.interactionActionId,
        state: 'offered',
        result: null,
        runtimeSessionId: null,
        reportedOutcome: null,
        observedReferenceNumber: null,
        operatorNotes: null,
        unableReason: null,
        revokeReason: null,
        revokeNotes: null,
        reconciliation: null,
        expiresAt: new Date(ctx.now.getTime() + MANUAL_HANDOFF_TTL_MS),
        version: 1,
        createdAt: new Date(ctx.now),
        updatedAt: new Date(ctx.now),
        activatedAt: null,
        closedAt: null,
      },
      null,
    );
    handoff.record({ type: 'manual_handoff.offered', ...handoff.ids(), occurredAt: new Date(ctx.now) });
    return handoff;
  }

  static rehydrate(state: ManualHandoffState): ManualHandoff {
    return new ManualHandoff(copyState(state), state.version);
  }

  get authorizationId(): string {
    return this.state.authorizationId;
  }
  get interactionActionId(): string {
    return this.state.interactionActionId;
  }
  get currentState(): ManualHandoffStateName {
    return this.state.state;
  }
  get result(): ManualHandoffResult | null {
    return this.state.result;
  }
  get runtimeSessionId(): string | null {
    return this.state.runtimeSessionId;
  }
  get observedReferenceNumber(): string | null {
    return this.state.observedReferenceNumber;
  }
  get reconciliation(): Reconciliation | null {
    return this.state.reconciliation === null ? null : { ...this.state.reconciliation };
  }
  get expiresAt(): Date {
    return new Date(this.state.expiresAt);
  }
  /** Open handoffs (and closed ones still reconciling) own the interaction lineage. */
  get ownsInteraction(): boolean {
    return this.state.state !== 'closed' || this.state.reconciliation?.state === 'pending';
  }

  /** Optimistic precondition (If-Match carries the handoff version on handoff mutations). */
  assertVersion(expected: number): void {
    if (expected !== this.state.version) {
      throw new VersionConflictError(expected, this.state.version);
    }
  }

  activate(runtimeSessionId: string, now: Date): void {
    this.move('activate', now);
    this.state.runtimeSessionId = runtimeSessionId;
    this.state.activatedAt = new Date(now);
    this.record({ type: 'manual_handoff.activated', ...this.ids(), occurredAt: new Date(now) });
  }

  /** The operator's claim; never payer truth by itself, so reconciliation starts pending. */
  complete(report: CompletionReport, ctx: ManualHandoffContext): void {
    this.move('complete', ctx.now);
    this.state.reportedOutcome = report.reportedOutcome;
    this.state.observedReferenceNumber = report.observedReferenceNumber;
    this.state.operatorNotes = report.operatorNotes;
    this.state.reconciliation = { id: ctx.newId('rec'), state: 'pending' };
    this.record({
      type: 'manual_handoff.completion_reported',
      ...this.ids(),
      reportedOutcome: report.reportedOutcome,
      occurredAt: new Date(ctx.now),
    });
  }

  /**
   * Settles a pending reconciliation. From `closing` it closes the handoff as completed_reported whether or
   * not the payer shows the submission (the operator did report completion); on an already closed handoff
   * (revoked, expired or lost while active) only the reconciliation state changes.
   */
  finishReconciliation(found: boolean, now: Date): void {
    if (this.state.reconciliation?.state !== 'pending') {
      throw manualHandoffInvalidState(this.state.state, 'finishReconciliation');
    }
    const wasClosing = this.state.state === 'closing';
    this.move('finishReconciliation', now);
    this.state.reconciliation = { ...this.state.reconciliation, state: found ? 'confirmed' : 'not_found' };
    if (wasClosing) {
      this.close('completed_reported', now);
    }
    this.record({
      type: 'manual_handoff.reconciled',
      ...this.ids(),
      reconciliationState: found ? 'confirmed' : 'not_found',
      occurredAt: new Date(now),
    });
  }

  unableToComplete(reason: UnableToCompleteReason, operatorNotes: string | null, now: Date): void {
    this.move('unableToComplete', now);
    this.state.unableReason = reason;
    this.state.operatorNotes = operatorNotes;
    this.close('unable_to_complete', now);
  }

  revoke(reason: string, notes: string | null, ctx: ManualHandoffContext): void {
    const wasActive = this.state.state === 'active';
    this.move('revoke', ctx.now);
    this.state.revokeReason = reason;
    this.state.revokeNotes = notes;
    this.startReconciliationIf(wasActive, ctx);
    this.close('revoked', ctx.now);
  }

  expire(ctx: ManualHandoffContext): void {
    const wasActive = this.state.state === 'active';
    this.move('expire', ctx.now);
    this.startReconciliationIf(wasActive, ctx);
    this.close('expired', ctx.now);
  }

  loseInteraction(ctx: ManualHandoffContext): void {
    this.move('loseInteraction', ctx.now);
    this.startReconciliationIf(true, ctx);
    this.close('interaction_lost_unrecoverable', ctx.now);
  }

  /** The authorization was canceled: nothing more happens on its behalf, so no reconciliation starts. */
  cancelForAuthorization(now: Date): void {
    this.move('cancelForAuthorization', now);
    this.close('canceled', now);
  }

  toState(): ManualHandoffState {
    return copyState(this.state);
  }

  private move(operation: ManualHandoffOperation, now: Date): void {
    this.state.state = transitionManualHandoff(this.state.state, operation);
    this.state.version += 1;
    this.state.updatedAt = new Date(now);
  }

  /** An operator with interactive access may have submitted: payer truth must be checked before it counts. */
  private startReconciliationIf(operatorHadAccess: boolean, ctx: ManualHandoffContext): void {
    if (operatorHadAccess) {
      this.state.reconciliation = { id: ctx.newId('rec'), state: 'pending' };
    }
  }

  private close(result: ManualHandoffResult, now: Date): void {
    this.state.result = result;
    this.state.closedAt = new Date(now);
    this.record({ type: 'manual_handoff.closed', ...this.ids(), result, occurredAt: new Date(now) });
  }

  private ids(): { manualHandoffId: string; authorizationId: string } {
    return { manualHandoffId: this.state.id, authorizationId: this.state.authorizationId };
  }

  private record(event: ManualHandoffEvent): void {
    this.events.push(event);
  }
}

const copyDate = (value: Date | null): Date | null => (value === null ? null : new Date(value));

const copyState = (state: ManualHandoffState): ManualHandoffState => ({
  ...state,
  reconciliation: state.reconciliation === null ? null : { ...state.reconciliation },
  expiresAt: new Date(state.expiresAt),
  createdAt: new Date(state.createdAt),
  updatedAt: new Date(state.updatedAt),
  activatedAt: copyDate(state.activatedAt),
  closedAt: copyDate(state.closedAt),
});
