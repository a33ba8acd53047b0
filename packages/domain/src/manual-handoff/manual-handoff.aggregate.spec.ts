import { DomainError, VersionConflictError } from '../shared/domain-error';
import {
  MANUAL_HANDOFF_TTL_MS,
  ManualHandoff,
  type ManualHandoffContext,
  type ReconciliationState,
} from './manual-handoff.aggregate';
import {
  MANUAL_HANDOFF_TRANSITIONS,
  type ManualHandoffOperation,
  type ManualHandoffResult,
  type ManualHandoffStateName,
} from './manual-handoff-state.state-machine';

const T0 = new Date('2026-03-02T09:00:00.000Z');

const context = (): ManualHandoffContext & { tick(): void } => {
  let n = 0;
  const ctx = {
    now: new Date(T0),
    newId: (prefix: string) => `${prefix}_${++n}`,
    tick: () => {
      ctx.now = new Date(ctx.now.getTime() + 1000);
    },
  };
  return ctx;
};

const report = {
  reportedOutcome: 'submitted' as const,
  observedReferenceNumber: 'REF-9',
  operatorNotes: 'Submitted through the portal.',
};

type Start = 'offered' | 'active' | 'closing' | 'closed' | 'closed_reconciling';

const handoffIn = (start: Start): { handoff: ManualHandoff; ctx: ReturnType<typeof context> } => {
  const ctx = context();
  const handoff = ManualHandoff.create(
    {
      organizationId: 'org_1',
      environment: 'sandbox',
      authorizationId: 'auth_1',
      interactionActionId: 'act_1',
    },
    ctx,
  );
  if (start !== 'offered') handoff.activate('rs_1', ctx.now);
  if (start === 'closing') handoff.complete(report, ctx);
  if (start === 'closed') handoff.unableToComplete('channel_blocked', null, ctx.now);
  if (start === 'closed_reconciling') handoff.revoke('operator left', null, ctx);
  handoff.pullEvents();
  ctx.tick();
  return { handoff, ctx };
};

const apply = (
  handoff: ManualHandoff,
  operation: ManualHandoffOperation,
  ctx: ManualHandoffContext,
): void => {
  switch (operation) {
    case 'activate':
      return handoff.activate('rs_2', ctx.now);
    case 'complete':
      return handoff.complete(report, ctx);
    case 'finishReconciliation':
      return handoff.finishReconciliation(true, ctx.now);
    case 'unableToComplete':
      return handoff.unableToComplete('credential_or_mfa_issue', 'MFA device unavailable', ctx.now);
    case 'revoke':
      return handoff.revoke('supervisor request', null, ctx);
    case 'expire':
      return handoff.expire(ctx);
    case 'loseInteraction':
      return handoff.loseInteraction(ctx);
    case 'cancelForAuthorization':
      return handoff.cancelForAuthorization(ctx.now);
  }
};

interface Expected {
  state: ManualHandoffStateName;
  result: ManualHandoffResult | null;
  reconciliation: ReconciliationState | null;
}

const ok = (
  state: ManualHandoffStateName,
  result: ManualHandoffResult | null,
  reconciliation: ReconciliationState | null = null,
): Expected => ({ state, result, reconciliation });

const REFUSED = null;

/** Every start × operation: the outcome, or null for manual_handoff_invalid_state. */
const TABLE: Array<[Start, ManualHandoffOperation, Expected | null]> = [
  ['offered', 'activate', ok('active', null)],
  ['offered', 'complete', REFUSED],
  ['offered', 'finishReconciliation', REFUSED],
  ['offered', 'unableToComplete', ok('closed', 'unable_to_complete')],
  ['offered', 'revoke', ok('closed', 'revoked')],
  ['offered', 'expire', ok('closed', 'expired')],
  ['offered', 'loseInteraction', REFUSED],
  ['offered', 'cancelForAuthorization', ok('closed', 'canceled')],

  ['active', 'activate', REFUSED],
  ['active', 'complete', ok('closing', null, 'pending')],
  ['active', 'finishReconciliation', REFUSED],
  ['active', 'unableToComplete', ok('closed', 'unable_to_complete')],
  ['active', 'revoke', ok('closed', 'revoked', 'pending')],
  ['active', 'expire', ok('closed', 'expired', 'pending')],
  ['active', 'loseInteraction', ok('closed', 'interaction_lost_unrecoverable', 'pending')],
  ['active', 'cancelForAuthorization', ok('closed', 'canceled')],

  ['closing', 'activate', REFUSED],
  ['closing', 'complete', REFUSED],
  ['closing', 'finishReconciliation', ok('closed', 'completed_reported', 'confirmed')],
  ['closing', 'unableToComplete', REFUSED],
  ['closing', 'revoke', ok('closed', 'revoked', 'pending')],
  ['closing', 'expire', REFUSED],
  ['closing', 'loseInteraction', REFUSED],
  ['closing', 'cancelForAuthorization', ok('closed', 'canceled', 'pending')],

  ['closed', 'activate', REFUSED],
  ['closed', 'complete', REFUSED],
  ['closed', 'finishReconciliation', REFUSED],
  ['closed', 'unableToComplete', REFUSED],
  ['closed', 'revoke', REFUSED],
  ['closed', 'expire', REFUSED],
  ['closed', 'loseInteraction', REFUSED],
  ['closed', 'cancelForAuthorization', REFUSED],

  ['closed_reconciling', 'activate', REFUSED],
  ['closed_reconciling', 'complete', REFUSED],
  ['closed_reconciling', 'finishReconciliation', ok('closed', 'revoked', 'confirmed')],
  ['closed_reconciling', 'unableToComplete', REFUSED],
  ['closed_reconciling', 'revoke', REFUSED],
  ['closed_reconciling', 'expire', REFUSED],
  ['closed_reconciling', 'loseInteraction', REFUSED],
  ['closed_reconciling', 'cancelForAuthorization', REFUSED],
];

describe('ManualHandoff', () => {
  it('covers every operation from every start', () => {
    const operations = Object.keys(MANUAL_HANDOFF_TRANSITIONS);
    expect(TABLE).toHaveLength(5 * operations.length);
  });

  it.each(TABLE.filter(([, , expected]) => expected !== null))(
    'from %s, %s is allowed',
    (start, operation, expected) => {
      const { handoff, ctx } = handoffIn(start);
      const version = handoff.version;
      apply(handoff, operation, ctx);
      expect({
        state: handoff.currentState,
        result: handoff.result,
        reconciliation: handoff.reconciliation?.state ?? null,
      }).toEqual(expected);
      expect(handoff.version).toBe(version + 1);
      expect(handoff.toState().updatedAt).toEqual(ctx.now);
      expect(handoff.toState().closedAt).toEqual(
        handoff.currentState === 'closed' ? (start === 'closed_reconciling' ? T0 : ctx.now) : null,
      );
      expect(handoff.pullEvents().length).toBeGreaterThan(0);
    },
  );

  it.each(TABLE.filter(([, , expected]) => expected === null))(
    'from %s, %s is refused with manual_handoff_invalid_state',
    (start, operation) => {
      const { handoff, ctx } = handoffIn(start);
      const before = handoff.toState();
      let error: unknown;
      try {
        apply(handoff, operation, ctx);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({
        code: 'manual_handoff_invalid_state',
        details: { state: start === 'closed_reconciling' ? 'closed' : start, operation },
      });
      expect(handoff.toState()).toEqual(before);
      expect(handoff.pullEvents()).toEqual([]);
    },
  );

  it('is created offered at version 1 with an expiry and nothing claimed', () => {
    const ctx = context();
    const handoff = ManualHandoff.create(
      {
        organizationId: 'org_1',
        environment: 'production',
        authorizationId: 'auth_1',
        interactionActionId: 'act_7',
      },
      ctx,
    );
    expect(handoff.toState()).toEqual({
      id: 'mh_1',
      organizationId: 'org_1',
      environment: 'production',
      authorizationId: 'auth_1',
      interactionActionId: 'act_7',
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
      expiresAt: new Date(T0.getTime() + MANUAL_HANDOFF_TTL_MS),
      version: 1,
      createdAt: T0,
      updatedAt: T0,
      activatedAt: null,
      closedAt: null,
    });
    expect(handoff.persistedVersion).toBeNull();
    expect(handoff.ownsInteraction).toBe(true);
    expect(handoff.pullEvents()).toEqual([
      { type: 'manual_handoff.offered', manualHandoffId: 'mh_1', authorizationId: 'auth_1', occurredAt: T0 },
    ]);
  });

  it('records the session on activation and the claim on completion', () => {
    const { handoff, ctx } = handoffIn('active');
    expect(handoff.runtimeSessionId).toBe('rs_1');
    expect(handoff.toState().activatedAt).toEqual(T0);
    handoff.complete(report, ctx);
    expect(handoff.toState()).toMatchObject({
      reportedOutcome: 'submitted',
      observedReferenceNumber: 'REF-9',
      operatorNotes: 'Submitted through the portal.',
      reconciliation: { id: 'rec_2', state: 'pending' },
    });
    expect(handoff.pullEvents()).toEqual([
      expect.objectContaining({ type: 'manual_handoff.completion_reported', reportedOutcome: 'submitted' }),
    ]);
  });

  it('closes a completed handoff as completed_reported even when the payer shows nothing', () => {
    const { handoff, ctx } = handoffIn('closing');
    handoff.finishReconciliation(false, ctx.now);
    expect(handoff.result).toBe('completed_reported');
    expect(handoff.reconciliation?.state).toBe('not_found');
    expect(handoff.ownsInteraction).toBe(false);
    expect(handoff.pullEvents().map((e) => e.type)).toEqual([
      'manual_handoff.closed',
      'manual_handoff.reconciled',
    ]);
  });

  it('settles the reconciliation of a handoff revoked while active without changing its result', () => {
    const { handoff, ctx } = handoffIn('closed_reconciling');
    expect(handoff.ownsInteraction).toBe(true);
    handoff.finishReconciliation(false, ctx.now);
    expect(handoff.result).toBe('revoked');
    expect(handoff.reconciliation?.state).toBe('not_found');
    expect(handoff.ownsInteraction).toBe(false);
  });

  it('keeps the operator reasons', () => {
    const unable = handoffIn('active');
    unable.handoff.unableToComplete('wrong_route', 'Portal says another plan.', unable.ctx.now);
    expect(unable.handoff.toState()).toMatchObject({
      unableReason: 'wrong_route',
      operatorNotes: 'Portal says another plan.',
    });
    const revoked = handoffIn('offered');
    revoked.handoff.revoke('duplicate', 'Opened twice.', revoked.ctx);
    expect(revoked.handoff.toState()).toMatchObject({
      revokeReason: 'duplicate',
      revokeNotes: 'Opened twice.',
    });
    expect(revoked.handoff.reconciliation).toBeNull();
  });

  it('assertVersion throws VersionConflictError with both versions', () => {
    const { handoff } = handoffIn('active');
    expect(() => handoff.assertVersion(2)).not.toThrow();
    expect(() => handoff.assertVersion(1)).toThrow(VersionConflictError);
    expect(() => handoff.assertVersion(1)).toThrow(
      expect.objectContaining({
        code: 'version_conflict',
        details: { expectedVersion: 1, actualVersion: 2 },
      }),
    );
  });

  it('rehydrates persisted at the stored version; state copies are independent', () => {
    const { handoff } = handoffIn('closing');
    const state = handoff.toState();
    const again = ManualHandoff.rehydrate(state);
    expect(again.persistedVersion).toBe(state.version);
    state.reconciliation!.state = 'confirmed';
    state.expiresAt.setUTCFullYear(2000);
    expect(again.reconciliation?.state).toBe('pending');
    expect(again.expiresAt.getUTCFullYear()).toBe(2026);
    again.reconciliation!.state = 'confirmed';
    expect(again.toState().reconciliation?.state).toBe('pending');
  });

  it('markPersisted records the current version', () => {
    const { handoff, ctx } = handoffIn('offered');
    expect(handoff.persistedVersion).toBeNull();
    handoff.markPersisted();
    expect(handoff.persistedVersion).toBe(1);
    handoff.activate('rs_9', ctx.now);
    expect(handoff.persistedVersion).toBe(1);
  });
});
