import { type Authorization } from '../authorization/authorization.aggregate';
import { type ManualHandoff } from '../manual-handoff/manual-handoff.aggregate';
import { MANUAL_HANDOFF_TTL_MS } from '../manual-handoff/manual-handoff.aggregate';
import { PayerPortalError } from '../ports/payer-portal.port';
import { DomainError } from '../shared/domain-error';
import { createHarness, OTHER_SCOPE, SCOPE, scriptedReceipt, type Harness } from '../testing';
import { CompleteManualHandoffUseCase } from './complete-manual-handoff.use-case';
import { ResolveGrantTargetUseCase } from './resolve-grant-target.use-case';
import {
  CreateLiveSessionGrantUseCase,
  LIVE_SESSION_GRANT_TTL_MS,
} from './create-live-session-grant.use-case';
import {
  CreateManualHandoffAccessGrantUseCase,
  MANUAL_HANDOFF_GRANT_TTL_MS,
} from './create-manual-handoff-access-grant.use-case';
import { CreateManualHandoffUseCase } from './create-manual-handoff.use-case';
import { ExpireManualHandoffUseCase } from './expire-manual-handoff.use-case';
import { GetLiveSessionUseCase } from './get-live-session.use-case';
import { GetManualHandoffUseCase } from './get-manual-handoff.use-case';
import { ListManualHandoffsUseCase } from './list-manual-handoffs.use-case';
import { LoseManualHandoffInteractionUseCase } from './lose-manual-handoff-interaction.use-case';
import { ProcessAuthorizationUseCase } from './process-authorization.use-case';
import { ReconcileManualHandoffUseCase } from './reconcile-manual-handoff.use-case';
import { RevokeManualHandoffUseCase } from './revoke-manual-handoff.use-case';
import { UnableToCompleteManualHandoffUseCase } from './unable-to-complete-manual-handoff.use-case';

const codeOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  throw new Error('expected a DomainError');
};

let h: Harness;
beforeEach(() => {
  h = createHarness();
});

const createHandoff = async (): Promise<{ handoff: ManualHandoff; authorization: Authorization }> => {
  const authorization = await h.authorizationIn('requires_action');
  h.jobs().length = 0;
  return new CreateManualHandoffUseCase(h.deps).execute(SCOPE, {
    authorizationId: authorization.id,
    expectedVersion: authorization.version,
  });
};

const loadHandoff = async (id: string): Promise<ManualHandoff> => {
  const found = await h.unitOfWork.run(SCOPE, (tx) => tx.manualHandoffs.findById(id));
  if (found === null) throw new Error(`No handoff ${id}`);
  return found;
};

const complete = (handoff: ManualHandoff, observedReferenceNumber: string | null = 'OBS-1') =>
  new CompleteManualHandoffUseCase(h.deps).execute(SCOPE, {
    authorizationId: handoff.authorizationId,
    manualHandoffId: handoff.id,
    expectedVersion: handoff.version,
    reportedOutcome: 'submitted',
    observedReferenceNumber,
    operatorNotes: null,
  });

const reconcile = (handoff: ManualHandoff, attempt = 1) =>
  new ReconcileManualHandoffUseCase(h.deps).execute(SCOPE, {
    authorizationId: handoff.authorizationId,
    manualHandoffId: handoff.id,
    attempt,
  });

const revoke = (handoff: ManualHandoff) =>
  new RevokeManualHandoffUseCase(h.deps).execute(SCOPE, {
    authorizationId: handoff.authorizationId,
    manualHandoffId: handoff.id,
    expectedVersion: handoff.version,
    reason: 'supervisor request',
    notes: null,
  });

describe('CreateManualHandoffUseCase', () => {
  it('creates an active handoff on a new runtime session and schedules its expiry', async () => {
    const { handoff, authorization } = await createHandoff();
    expect(handoff.toState()).toMatchObject({
      state: 'active',
      result: null,
      runtimeSessionId: 'rs_1',
      interactionActionId: authorization.nextAction!.id,
      version: 2,
    });
    expect(h.runtimeSessions.sessions.get('rs_1')).toMatchObject({
      scope: SCOPE,
      authorizationId: authorization.id,
      status: 'active',
    });
    expect(authorization.status).toBe('requires_action');
    expect(await loadHandoff(handoff.id)).toMatchObject({ currentState: 'active' });
    expect(h.jobs()).toEqual([
      {
        type: 'expire_manual_handoff',
        authorizationId: authorization.id,
        runAt: new Date(h.clock.now().getTime() + MANUAL_HANDOFF_TTL_MS),
        payload: { manualHandoffId: handoff.id },
      },
    ]);
    expect(h.domainEvents().map((e) => e.type)).toEqual(
      expect.arrayContaining(['manual_handoff.offered', 'manual_handoff.activated']),
    );
  });

  it.each(['requires_input', 'processing', 'waiting_on_payer'] as const)(
    'refuses with manual_handoff_not_allowed while %s',
    async (status) => {
      const authorization = await h.authorizationIn(status);
      const result = new CreateManualHandoffUseCase(h.deps).execute(SCOPE, {
        authorizationId: authorization.id,
        expectedVersion: authorization.version,
      });
      expect(await codeOf(result)).toBe('manual_handoff_not_allowed');
      expect(h.runtimeSessions.sessions.size).toBe(0);
    },
  );

  it('refuses a second handoff for the same interaction lineage', async () => {
    const { authorization } = await createHandoff();
    const result = new CreateManualHandoffUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
      expectedVersion: authorization.version,
    });
    await expect(result).rejects.toMatchObject({ code: 'manual_handoff_not_allowed' });
  });

  it('refuses a stale authorization version and an unknown authorization', async () => {
    const authorization = await h.authorizationIn('requires_action');
    const create = new CreateManualHandoffUseCase(h.deps);
    expect(
      await codeOf(create.execute(SCOPE, { authorizationId: authorization.id, expectedVersion: 1 })),
    ).toBe('version_conflict');
    expect(
      await codeOf(create.execute(OTHER_SCOPE, { authorizationId: authorization.id, expectedVersion: 1 })),
    ).toBe('authorization_not_found');
  });

  it('writes nothing when provisioning fails, and releases the session when the commit fails', async () => {
    const authorization = await h.authorizationIn('requires_action');
    const create = new CreateManualHandoffUseCase(h.deps);
    const command = { authorizationId: authorization.id, expectedVersion: authorization.version };
    h.runtimeSessions.failProvision = new Error('no capacity');
    await expect(create.execute(SCOPE, command)).rejects.toThrow('no capacity');
    h.runtimeSessions.failProvision = null;
    h.unitOfWork.failNextCommit = new Error('database gone');
    await expect(create.execute(SCOPE, command)).rejects.toThrow('database gone');
    expect(h.runtimeSessions.released).toEqual(['rs_1']);
    const handoffs = await h.unitOfWork.run(SCOPE, (tx) =>
      tx.manualHandoffs.listByAuthorization(authorization.id),
    );
    expect(handoffs).toEqual([]);
  });
});

describe('CompleteManualHandoffUseCase and ReconcileManualHandoffUseCase', () => {
  it('records the claim, resumes processing, ends access and schedules reconciliation', async () => {
    const { handoff } = await createHandoff();
    h.jobs().length = 0;
    const result = await complete(handoff);
    expect(result.handoff.toState()).toMatchObject({
      state: 'closing',
      result: null,
      reconciliation: { state: 'pending' },
    });
    expect(result.authorization.status).toBe('processing');
    expect(result.authorization.nextAction).toBeNull();
    expect(h.grantIssuer.revokedSubjects).toEqual([handoff.id]);
    expect(h.runtimeSessions.released).toEqual(['rs_1']);
    expect(h.jobs()).toEqual([
      {
        type: 'reconcile_handoff',
        authorizationId: handoff.authorizationId,
        payload: { manualHandoffId: handoff.id, attempt: 1 },
      },
    ]);
  });

  it('keeps automation out while the reconciliation is pending', async () => {
    const { handoff } = await createHandoff();
    await complete(handoff);
    const calls = h.payerPortal.calls.length;
    expect(
      await new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, {
        authorizationId: handoff.authorizationId,
      }),
    ).toBe('skipped');
    expect(h.payerPortal.calls).toHaveLength(calls);
  });

  it('confirmed: closes completed_reported and records the receipt the payer shows', async () => {
    const { handoff } = await createHandoff();
    await complete(handoff);
    h.jobs().length = 0;
    h.payerPortal.reply('findSubmission', { receipt: scriptedReceipt({ referenceNumber: 'OBS-1' }) });
    expect(await reconcile(handoff)).toBe('confirmed');

    const lookup = h.payerPortal.callsTo('findSubmission').at(-1);
    expect(lookup?.options).toMatchObject({ referenceNumber: 'OBS-1', idempotencyKey: expect.any(String) });
    expect(await loadHandoff(handoff.id)).toMatchObject({
      currentState: 'closed',
      result: 'completed_reported',
      reconciliation: expect.objectContaining({ state: 'confirmed' }),
    });
    const authorization = await h.load(handoff.authorizationId);
    expect(authorization.status).toBe('waiting_on_payer');
    expect(authorization.submission.payerReceipt?.referenceNumber).toBe('OBS-1');
    expect(h.jobs().map((j) => j.type)).toEqual(['poll_decision', 'decision_overdue']);
  });

  it('not found: retries, then closes not_found and hands the case back to a human', async () => {
    const { handoff } = await createHandoff();
    await complete(handoff, null);
    h.jobs().length = 0;
    expect(await reconcile(handoff, 1)).toBe('retry_scheduled');
    expect(h.payerPortal.callsTo('findSubmission').at(-1)?.options).not.toHaveProperty('referenceNumber');
    expect(h.jobs()).toEqual([
      {
        type: 'reconcile_handoff',
        authorizationId: handoff.authorizationId,
        runAt: new Date(h.clock.now().getTime() + 30_000),
        payload: { manualHandoffId: handoff.id, attempt: 2 },
      },
    ]);
    expect(await reconcile(handoff, 2)).toBe('not_found');
    expect(await loadHandoff(handoff.id)).toMatchObject({
      result: 'completed_reported',
      reconciliation: expect.objectContaining({ state: 'not_found' }),
    });
    const authorization = await h.load(handoff.authorizationId);
    expect(authorization.status).toBe('requires_action');
    expect(authorization.submission.payerReceipt).toBeNull();
    expect(authorization.nextAction).toMatchObject({
      type: 'complete_payer_interaction',
      resolution: { kind: 'manual_handoff', reason: 'manual_submission_not_found' },
    });
    // The new lineage may be handed off again.
    const again = await new CreateManualHandoffUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
      expectedVersion: authorization.version,
    });
    expect(again.handoff.currentState).toBe('active');
  });

  it.each(['customer_login_required', 'portal_account_locked', 'credential_or_mfa_issue'])(
    'before the final boundary (%s): settles without asking the payer and resumes the pipeline',
    async (code) => {
      const processing = await h.authorizationIn('processing', 'requires_confirmation');
      h.payerPortal.fail(
        'discover',
        new PayerPortalError(code, 'Sign in at the portal.', { transient: false }),
      );
      expect(
        await new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id }),
      ).toBe('manual_interaction_required');
      const waiting = await h.load(processing.id);
      expect(waiting.finalBoundaryCrossedAt).toBeNull();
      expect(waiting.nextAction).toMatchObject({ resolution: { kind: 'manual_handoff', reason: code } });
      const { handoff } = await new CreateManualHandoffUseCase(h.deps).execute(SCOPE, {
        authorizationId: waiting.id,
        expectedVersion: waiting.version,
      });
      await complete(handoff, null);
      h.jobs().length = 0;

      expect(await reconcile(handoff)).toBe('pipeline_resumed');
      expect(h.payerPortal.callsTo('findSubmission')).toEqual([]);
      expect(await loadHandoff(handoff.id)).toMatchObject({
        currentState: 'closed',
        result: 'completed_reported',
        reconciliation: expect.objectContaining({ state: 'not_found' }),
      });
      expect((await h.load(processing.id)).status).toBe('processing');
      expect(h.jobs()).toEqual([{ type: 'process', authorizationId: processing.id }]);
      // The pipeline now owns the case again.
      expect(
        await new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id }),
      ).toBe('awaiting_final_approval');
    },
  );

  it('skips a handoff with nothing to reconcile', async () => {
    const { handoff } = await createHandoff();
    expect(await reconcile(handoff)).toBe('skipped');
    expect(h.payerPortal.callsTo('findSubmission')).toEqual([]);
  });

  it('refuses a stale handoff version, a handoff of another authorization, and a second completion', async () => {
    const { handoff } = await createHandoff();
    const completeWith = (overrides: { authorizationId?: string; expectedVersion?: number }) =>
      new CompleteManualHandoffUseCase(h.deps).execute(SCOPE, {
        authorizationId: handoff.authorizationId,
        manualHandoffId: handoff.id,
        expectedVersion: handoff.version,
        reportedOutcome: 'decision_observed',
        observedReferenceNumber: null,
        operatorNotes: null,
        ...overrides,
      });
    expect(await codeOf(completeWith({ expectedVersion: 1 }))).toBe('version_conflict');
    expect(await codeOf(completeWith({ authorizationId: 'auth_other' }))).toBe('manual_handoff_not_found');
    await completeWith({});
    expect(await codeOf(completeWith({ expectedVersion: handoff.version + 1 }))).toBe(
      'manual_handoff_invalid_state',
    );
  });
});

describe('UnableToCompleteManualHandoffUseCase', () => {
  it('closes the handoff and returns the case to processing for the pipeline', async () => {
    const { handoff } = await createHandoff();
    h.jobs().length = 0;
    const result = await new UnableToCompleteManualHandoffUseCase(h.deps).execute(SCOPE, {
      authorizationId: handoff.authorizationId,
      manualHandoffId: handoff.id,
      expectedVersion: handoff.version,
      reason: 'credential_or_mfa_issue',
      operatorNotes: 'No MFA device.',
    });
    expect(result.handoff.toState()).toMatchObject({
      state: 'closed',
      result: 'unable_to_complete',
      unableReason: 'credential_or_mfa_issue',
      reconciliation: null,
    });
    expect(result.authorization.status).toBe('processing');
    expect(h.jobs()).toEqual([{ type: 'process', authorizationId: handoff.authorizationId }]);
    expect(h.grantIssuer.revokedSubjects).toEqual([handoff.id]);
    expect(h.runtimeSessions.released).toEqual(['rs_1']);
  });
});

describe('RevokeManualHandoffUseCase', () => {
  it('closes an active handoff, revokes its grants and reconciles before any payer truth', async () => {
    const { handoff } = await createHandoff();
    h.jobs().length = 0;
    const result = await revoke(handoff);
    expect(result.handoff.toState()).toMatchObject({
      state: 'closed',
      result: 'revoked',
      revokeReason: 'supervisor request',
      reconciliation: { state: 'pending' },
    });
    expect(result.authorization.status).toBe('requires_action');
    expect(h.grantIssuer.revokedSubjects).toEqual([handoff.id]);
    expect(h.jobs()).toEqual([
      {
        type: 'reconcile_handoff',
        authorizationId: handoff.authorizationId,
        payload: { manualHandoffId: handoff.id, attempt: 1 },
      },
    ]);
  });

  it('confirmed: the payer page of the found submission is stored and linked by the receipt', async () => {
    const { handoff } = await createHandoff();
    await complete(handoff);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    h.payerPortal.reply('findSubmission', {
      receipt: scriptedReceipt({ referenceNumber: 'OBS-1' }),
      evidence: [
        {
          kind: 'confirmation_image',
          step: 'found_at_payer',
          contentType: 'image/png',
          bytes: png,
          capturedAt: new Date('2026-03-02T09:29:00.000Z'),
        },
      ],
    });
    expect(await reconcile(handoff)).toBe('confirmed');

    const [record] = await h.unitOfWork.run(SCOPE, (tx) =>
      tx.payerEvidence.listByAuthorization(handoff.authorizationId),
    );
    const receipt = (await h.load(handoff.authorizationId)).submission.payerReceipt!;
    expect(receipt.details).toEqual({ confirmationFileId: record!.fileId });
    const file = await h.unitOfWork.run(SCOPE, (tx) => tx.files.findById(record!.fileId));
    expect(file?.toState()).toMatchObject({ purpose: 'payer_evidence', contentType: 'image/png' });
    expect(h.blobStore.objects.get(record!.blobKey)).toEqual(png);
  });

  it('a submission found after a revoke is still projected onto the case', async () => {
    const { handoff } = await createHandoff();
    await revoke(handoff);
    h.payerPortal.reply('findSubmission', { receipt: scriptedReceipt() });
    expect(await reconcile(handoff)).toBe('confirmed');
    expect((await loadHandoff(handoff.id)).result).toBe('revoked');
    expect((await h.load(handoff.authorizationId)).status).toBe('waiting_on_payer');
  });

  it('nothing found after a revoke: the case stays in requires_action and may be handed off again', async () => {
    const { handoff, authorization } = await createHandoff();
    await revoke(handoff);
    expect(await reconcile(handoff, 2)).toBe('not_found');
    const stored = await h.load(handoff.authorizationId);
    expect(stored.status).toBe('requires_action');
    expect(stored.version).toBe(authorization.version);
    const again = await new CreateManualHandoffUseCase(h.deps).execute(SCOPE, {
      authorizationId: stored.id,
      expectedVersion: stored.version,
    });
    expect(again.handoff.interactionActionId).toBe(handoff.interactionActionId);
  });

  it('blocks a new handoff while the revoked one is still reconciling', async () => {
    const { handoff, authorization } = await createHandoff();
    await revoke(handoff);
    const result = new CreateManualHandoffUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
      expectedVersion: authorization.version,
    });
    expect(await codeOf(result)).toBe('manual_handoff_not_allowed');
  });

  it('does not schedule a second reconciliation for a handoff revoked while closing', async () => {
    const { handoff } = await createHandoff();
    const completed = await complete(handoff);
    h.jobs().length = 0;
    await revoke(completed.handoff);
    expect(h.jobs()).toEqual([]);
  });

  it('leaves the handoff untouched when revoking grants fails; refuses a closed handoff', async () => {
    const { handoff } = await createHandoff();
    h.grantIssuer.failRevoke = new Error('grant service down');
    await expect(revoke(handoff)).rejects.toThrow('grant service down');
    expect((await loadHandoff(handoff.id)).currentState).toBe('active');
    h.grantIssuer.failRevoke = null;
    const revoked = await revoke(handoff);
    expect(await codeOf(revoke(revoked.handoff))).toBe('manual_handoff_invalid_state');
  });
});

describe('ExpireManualHandoffUseCase and LoseManualHandoffInteractionUseCase', () => {
  const expire = (handoff: ManualHandoff) =>
    new ExpireManualHandoffUseCase(h.deps).execute(SCOPE, {
      authorizationId: handoff.authorizationId,
      manualHandoffId: handoff.id,
    });

  it('reschedules an early delivery, then expires with reconciliation', async () => {
    const { handoff } = await createHandoff();
    h.jobs().length = 0;
    expect(await expire(handoff)).toBe('rescheduled');
    expect(h.jobs()).toEqual([
      expect.objectContaining({ type: 'expire_manual_handoff', runAt: handoff.expiresAt }),
    ]);
    h.jobs().length = 0;
    h.clock.set(handoff.expiresAt);
    expect(await expire(handoff)).toBe('expired');
    expect(await loadHandoff(handoff.id)).toMatchObject({
      result: 'expired',
      reconciliation: { state: 'pending' },
    });
    expect(h.jobs().map((j) => j.type)).toEqual(['reconcile_handoff']);
    expect(h.runtimeSessions.released).toEqual(['rs_1']);
    expect(await expire(handoff)).toBe('skipped');
  });

  it('closes a lost interaction as interaction_lost_unrecoverable with reconciliation', async () => {
    const { handoff } = await createHandoff();
    const lose = new LoseManualHandoffInteractionUseCase(h.deps);
    const command = { authorizationId: handoff.authorizationId, manualHandoffId: handoff.id };
    expect(await lose.execute(SCOPE, command)).toBe('closed');
    expect(await loadHandoff(handoff.id)).toMatchObject({
      result: 'interaction_lost_unrecoverable',
      reconciliation: { state: 'pending' },
    });
    expect(await lose.execute(SCOPE, command)).toBe('skipped');
  });
});

describe('access grants, reads and live sessions', () => {
  it('issues an interactive grant only while the handoff is active, never past its expiry', async () => {
    const { handoff } = await createHandoff();
    const grants = new CreateManualHandoffAccessGrantUseCase(h.deps);
    const command = { authorizationId: handoff.authorizationId, manualHandoffId: handoff.id };
    const grant = await grants.execute(SCOPE, command);
    expect(grant.expiresAt).toEqual(new Date(h.clock.now().getTime() + MANUAL_HANDOFF_GRANT_TTL_MS));
    expect(h.grantIssuer.issued[0]).toMatchObject({
      kind: 'manual_handoff',
      subjectId: handoff.id,
      scope: SCOPE,
    });

    h.clock.set(new Date(handoff.expiresAt.getTime() - 1000));
    expect((await grants.execute(SCOPE, command)).expiresAt).toEqual(handoff.expiresAt);
    // Past its expiry, before the expiry job closed it: nothing to grant.
    h.clock.set(handoff.expiresAt);
    await expect(grants.execute(SCOPE, command)).rejects.toMatchObject({
      code: 'manual_handoff_invalid_state',
      details: { state: 'active', operation: 'createAccessGrant' },
    });
    h.clock.set(new Date(handoff.expiresAt.getTime() - 1000));

    await complete(handoff);
    await expect(grants.execute(SCOPE, command)).rejects.toMatchObject({
      code: 'manual_handoff_invalid_state',
      details: { state: 'closing', operation: 'createAccessGrant' },
    });
    expect(await codeOf(grants.execute(OTHER_SCOPE, command))).toBe('manual_handoff_not_found');
  });

  it('gets and lists handoffs with their authorization', async () => {
    const { handoff, authorization } = await createHandoff();
    const got = await new GetManualHandoffUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
      manualHandoffId: handoff.id,
    });
    expect(got.handoff.id).toBe(handoff.id);
    expect(got.authorization.id).toBe(authorization.id);
    const listed = await new ListManualHandoffsUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
    });
    expect(listed.handoffs.map((x) => x.id)).toEqual([handoff.id]);
    expect(
      await codeOf(
        new ListManualHandoffsUseCase(h.deps).execute(OTHER_SCOPE, { authorizationId: authorization.id }),
      ),
    ).toBe('authorization_not_found');
  });

  it('reads the live session without side effects and grants a read-only view of it', async () => {
    const { authorization } = await createHandoff();
    const commits = h.unitOfWork.commits;
    const view = await new GetLiveSessionUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
    });
    expect(view.liveSession).toEqual({ sessionId: 'rs_1', status: 'active', startedAt: h.clock.now() });
    expect(h.grantIssuer.issued).toEqual([]);
    expect(h.unitOfWork.commits).toBe(commits + 1);

    const grant = await new CreateLiveSessionGrantUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
    });
    expect(grant.expiresAt).toEqual(new Date(h.clock.now().getTime() + LIVE_SESSION_GRANT_TTL_MS));
    expect(h.grantIssuer.issued[0]).toMatchObject({ kind: 'live_session', subjectId: authorization.id });
  });

  it('shows no live session once the handoff ended it, and grants no view of it', async () => {
    const { handoff, authorization } = await createHandoff();
    await complete(handoff);
    const view = await new GetLiveSessionUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
    });
    expect(view.liveSession).toBeNull();
    const result = new CreateLiveSessionGrantUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
    });
    await expect(result).rejects.toMatchObject({ code: 'live_session_not_available' });
  });

  it('leads an opened grant into the session only while its subject is still usable', async () => {
    const { handoff, authorization } = await createHandoff();
    const resolve = new ResolveGrantTargetUseCase(h.deps);
    const expiresAt = new Date(h.clock.now().getTime() + 60_000);
    const interactive = { scope: SCOPE, kind: 'manual_handoff' as const, subjectId: handoff.id, expiresAt };
    const readOnly = { scope: SCOPE, kind: 'live_session' as const, subjectId: authorization.id, expiresAt };
    const interactiveUrl = await resolve.execute(interactive);
    const readOnlyUrl = await resolve.execute(readOnly);
    expect(interactiveUrl).toEqual(expect.any(String));
    expect(readOnlyUrl).toEqual(expect.any(String));
    expect(readOnlyUrl).not.toBe(interactiveUrl);
    // Another tenant's grant can never name this handoff.
    expect(await resolve.execute({ ...interactive, scope: OTHER_SCOPE })).toBeNull();

    await complete(handoff);
    expect(await resolve.execute(interactive)).toBeNull();
    expect(await resolve.execute(readOnly)).toBeNull();
  });

  it('refuses a live-session grant when there is no live session', async () => {
    const authorization = await h.authorizationIn('processing');
    const result = new CreateLiveSessionGrantUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
    });
    await expect(result).rejects.toMatchObject({
      code: 'live_session_not_available',
      details: { authorizationId: authorization.id },
    });
  });
});
