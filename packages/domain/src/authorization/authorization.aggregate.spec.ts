import { DomainError, VersionConflictError } from '../shared/domain-error';
import { Authorization, PORTAL_GROUP_ID, PORTAL_GROUP_TITLE } from './authorization.aggregate';
import type { AuthorizationState } from './authorization.types';
import { freezeShared } from './deep-copy';
import {
  authorizationIn,
  clinicalNotesFile,
  completeAnswers,
  createInput,
  createTestContext,
  crossBoundary,
  response,
  testDecision,
  testReceipt,
} from './testing/authorization.fixtures';

const HOUR = 60 * 60 * 1000;

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  throw new Error('expected a DomainError');
};

const approvalRequested = () => {
  const arranged = authorizationIn('processing', 'requires_confirmation');
  const snapshot = arranged.auth.requestFinalApproval(
    { summary: { payer: 'UnitedHealthcare' }, warnings: ['Check dates'], liveViewUrl: null },
    arranged.ctx,
  );
  return { ...arranged, snapshot };
};

describe('Authorization.create', () => {
  it('starts at version 1 in requires_input with a provide_requirements action when something blocks', () => {
    const ctx = createTestContext();
    const auth = Authorization.create(createInput(), ctx);

    expect(auth.version).toBe(1);
    expect(auth.id).toMatch(/^auth_/);
    expect(auth.status).toBe('requires_input');
    expect(auth.requirements.version).toBe(1);
    expect(auth.requirements.questions.map((q) => q.linkId)).toEqual([
      'patient.memberId',
      'patient.firstName',
      'patient.lastName',
      'patient.birthDate',
    ]);
    expect(auth.requirements.documents.map((d) => d.type)).toEqual(['clinical_notes']);
    expect(auth.nextAction).toMatchObject({
      type: 'provide_requirements',
      owner: 'customer',
      authorizationVersion: 1,
      requirementsVersion: 1,
      reviewSnapshotId: null,
      expiresAt: null,
      resolution: null,
    });
    expect(auth.persistedVersion).toBeNull();
    expect(auth.pullEvents().map((e) => e.type)).toEqual([
      'authorization.created',
      'authorization.next_action_opened',
    ]);
  });

  it('starts in requires_confirmation with advance_case when nothing blocks', () => {
    const auth = Authorization.create(
      createInput({ documentRequirements: [], questionnaireResponse: response(completeAnswers()) }),
      createTestContext(),
    );
    expect(auth.status).toBe('requires_confirmation');
    expect(auth.nextAction?.type).toBe('advance_case');
    expect(auth.requirements).toEqual({ questions: [], documents: [], issues: [], version: 1 });
  });

  it('normalises initial answers: empty items dropped, duplicate linkIds collapsed (last wins)', () => {
    const auth = Authorization.create(
      createInput({
        questionnaireResponse: response([
          { linkId: 'patient.memberId', answer: [{ valueString: 'OLD' }] },
          { linkId: 'request.notes', answer: [] },
          { linkId: 'patient.memberId', answer: [{ valueString: 'NEW' }] },
        ]),
      }),
      createTestContext(),
    );
    expect(auth.questionnaireResponse).toEqual(
      response([{ linkId: 'patient.memberId', answer: [{ valueString: 'NEW' }] }]),
    );
  });

  it('refuses a missing final submission policy', () => {
    const input = createInput({ policy: undefined as never });
    expect(codeOf(() => Authorization.create(input, createTestContext()))).toBe(
      'final_submission_policy_required',
    );
  });
});

describe('editing', () => {
  it('merges answers by linkId: replaced, cleared by an empty array, unsent items kept (decision 0028)', () => {
    const { auth, ctx } = authorizationIn('requires_input');
    auth.patchAnswers(
      [
        { linkId: 'patient.firstName', answer: [{ valueString: 'Grace' }] },
        { linkId: 'patient.memberId', answer: [] },
        { linkId: 'request.expedited', answer: [{ valueBoolean: true }] },
      ],
      ctx,
    );
    const byLinkId = Object.fromEntries(auth.questionnaireResponse.item.map((i) => [i.linkId, i.answer]));
    expect(byLinkId).toEqual({
      'patient.firstName': [{ valueString: 'Grace' }],
      'patient.lastName': [{ valueString: 'Lovelace' }],
      'patient.birthDate': [{ valueDate: '1980-12-10' }],
      'request.expedited': [{ valueBoolean: true }],
    });
    expect(auth.requirements.questions.map((q) => q.linkId)).toEqual(['patient.memberId']);
  });

  it('bumps version by one per edit; requirement version only when the set changes', () => {
    const { auth, ctx } = authorizationIn('requires_input');
    const start = auth.toState();

    auth.patchAnswers([{ linkId: 'request.notes', answer: [{ valueString: 'n' }] }], ctx);
    expect(auth.version).toBe(start.version + 1);
    expect(auth.requirements.version).toBe(start.requirements.version);
    expect(auth.toState().questionnaireResponseVersion).toBe(start.questionnaireResponseVersion + 1);

    const attachment = auth.attachFile(clinicalNotesFile, ctx);
    expect(auth.version).toBe(start.version + 2);
    expect(auth.requirements.version).toBe(start.requirements.version + 1);
    expect(auth.toState().attachmentVersion).toBe(start.attachmentVersion + 1);
    expect(attachment).toMatchObject({
      fileId: 'file_1',
      documentTypes: ['clinical_notes'],
      label: 'notes.pdf',
    });
    expect(attachment.id).toMatch(/^att_/);

    auth.detachAttachment(attachment.id, ctx);
    expect(auth.version).toBe(start.version + 3);
    expect(auth.requirements.version).toBe(start.requirements.version + 2);
    expect(auth.toState().attachmentVersion).toBe(start.attachmentVersion + 2);
    expect(auth.status).toBe('requires_input');
    expect(auth.nextAction).toMatchObject({
      type: 'provide_requirements',
      authorizationVersion: auth.version,
      requirementsVersion: auth.requirements.version,
    });
  });

  it('counts an edit that changes nothing as an edit', () => {
    const { auth, ctx } = authorizationIn('requires_confirmation');
    const before = auth.toState();
    auth.patchAnswers([{ linkId: 'patient.memberId', answer: [{ valueString: 'M123456789' }] }], ctx);
    expect(auth.version).toBe(before.version + 1);
    expect(auth.questionnaireResponse).toEqual(before.questionnaireResponse);
    expect(auth.requirements.version).toBe(before.requirements.version);
  });

  it('supersedes the open action with a new id, even when the type stays the same', () => {
    const { auth, ctx } = authorizationIn('requires_confirmation');
    const old = auth.nextAction!;
    auth.patchAnswers([{ linkId: 'request.notes', answer: [{ valueString: 'n' }] }], ctx);

    expect(auth.nextAction?.type).toBe('advance_case');
    expect(auth.nextAction?.id).not.toBe(old.id);
    expect(auth.nextAction?.authorizationVersion).toBe(auth.version);
    expect(codeOf(() => auth.confirm(old.id, ctx))).toBe('next_action_mismatch');
  });

  it('drops back to requires_input when an edit re-opens a blocker', () => {
    const { auth, ctx } = authorizationIn('requires_confirmation');
    const attachmentId = auth.attachments[0]!.id;
    auth.detachAttachment(attachmentId, ctx);
    expect(auth.status).toBe('requires_input');
    expect(auth.requirements.documents).toEqual([
      { type: 'clinical_notes', message: 'Attach clinical notes supporting medical necessity.' },
    ]);
  });

  it('refuses to detach an unknown attachment', () => {
    const { auth, ctx } = authorizationIn('requires_input');
    expect(codeOf(() => auth.detachAttachment('att_missing', ctx))).toBe('attachment_not_found');
  });

  it.each(['processing', 'requires_action', 'waiting_on_payer', 'completed', 'canceled'] as const)(
    'refuses edits while %s',
    (status) => {
      const { auth, ctx } = authorizationIn(status);
      expect(codeOf(() => auth.patchAnswers([], ctx))).toBe('authorization_not_mutable');
      expect(codeOf(() => auth.attachFile(clinicalNotesFile, ctx))).toBe('authorization_not_mutable');
      expect(codeOf(() => auth.detachAttachment('att_any', ctx))).toBe('authorization_not_mutable');
    },
  );

  it('records answer and attachment events without answer content', () => {
    const { auth, ctx } = authorizationIn('requires_input');
    auth.patchAnswers([{ linkId: 'request.notes', answer: [{ valueString: 'secret' }] }], ctx);
    const attachment = auth.attachFile(clinicalNotesFile, ctx);
    const events = auth.pullEvents();
    expect(events.map((e) => e.type)).toEqual([
      'authorization.answers_updated',
      'authorization.next_action_opened',
      'authorization.attachment_added',
      'authorization.requirements_changed',
      'authorization.next_action_opened',
      'authorization.status_changed',
    ]);
    expect(events[2]).toMatchObject({ attachmentId: attachment.id, fileId: 'file_1', version: auth.version });
    expect(events[5]).toMatchObject({ from: 'requires_input', to: 'requires_confirmation' });
    expect(JSON.stringify(events)).not.toContain('secret');
    expect(auth.pullEvents()).toEqual([]);
  });
});

describe('confirm', () => {
  it.each([undefined, null, ''])('requires a nextActionId (%p)', (id) => {
    const { auth, ctx } = authorizationIn('requires_confirmation');
    expect(codeOf(() => auth.confirm(id, ctx))).toBe('next_action_required');
  });

  it('refuses to confirm a provide_requirements action', () => {
    const { auth, ctx } = authorizationIn('requires_input');
    expect(codeOf(() => auth.confirm(auth.nextAction!.id, ctx))).toBe('next_action_not_confirmable');
  });

  it('refuses when not awaiting confirmation', () => {
    const { auth, ctx } = authorizationIn('requires_input');
    expect(codeOf(() => auth.confirm('act_other', ctx))).toBe('authorization_not_confirmable');
  });

  it('refuses a stale action id', () => {
    const { auth, ctx } = authorizationIn('requires_confirmation');
    expect(codeOf(() => auth.confirm('act_other', ctx))).toBe('next_action_mismatch');
  });

  it('refuses when requirements remain (defensive: state loaded from storage)', () => {
    const { auth } = authorizationIn('requires_confirmation');
    const state: AuthorizationState = auth.toState();
    state.requirements.questions.push({ linkId: 'patient.memberId', message: 'Member ID is required.' });
    const loaded = Authorization.rehydrate(state);
    expect(codeOf(() => loaded.confirm(state.nextAction!.id, createTestContext()))).toBe(
      'requirements_not_satisfied',
    );
  });

  it('advance_case moves to processing, clears the action and records a confirmed event', () => {
    const { auth, ctx } = authorizationIn('requires_confirmation');
    const actionId = auth.nextAction!.id;
    expect(auth.confirm(actionId, ctx)).toBe('advance_case');
    expect(auth.status).toBe('processing');
    expect(auth.nextAction).toBeNull();
    expect(auth.finalBoundaryCrossedAt).toBeNull();
    expect(auth.pullEvents()).toEqual([
      expect.objectContaining({
        type: 'authorization.confirmed',
        nextActionId: actionId,
        actionType: 'advance_case',
      }),
      expect.objectContaining({
        type: 'authorization.status_changed',
        from: 'requires_confirmation',
        to: 'processing',
      }),
    ]);
  });
});

describe('final submission review', () => {
  it('creates a current snapshot covering the current versions and an approve_submission action', () => {
    const { auth, snapshot } = approvalRequested();
    const state = auth.toState();
    expect(auth.status).toBe('requires_confirmation');
    expect(snapshot).toMatchObject({
      status: 'current',
      kind: 'final_submission',
      summary: { payer: 'UnitedHealthcare' },
      warnings: ['Check dates'],
      covers: {
        authorizationVersion: state.version,
        requirementsVersion: state.requirements.version,
        questionnaireResponseVersion: state.questionnaireResponseVersion,
        attachmentVersion: state.attachmentVersion,
      },
      questionnaireResponse: state.questionnaireResponse,
      attachments: state.attachments,
    });
    expect(auth.nextAction).toMatchObject({
      id: snapshot.nextActionId,
      type: 'approve_submission',
      reviewSnapshotId: snapshot.id,
      authorizationVersion: state.version,
    });
  });

  it('approving crosses the final boundary irreversibly and resumes processing', () => {
    const { auth, ctx, snapshot } = approvalRequested();
    ctx.advance(HOUR);
    expect(auth.confirm(snapshot.nextActionId, ctx)).toBe('approve_submission');
    expect(auth.status).toBe('processing');
    expect(auth.submission.reviewSnapshot?.status).toBe('approved');
    expect(auth.finalBoundaryCrossedAt).toEqual(ctx.now);
    expect(
      codeOf(() => auth.requestFinalApproval({ summary: {}, warnings: [], liveViewUrl: null }, ctx)),
    ).toBe('invalid_transition');
  });

  it('an edit makes the snapshot stale and approving the old action fails with review_stale', () => {
    const { auth, ctx, snapshot } = approvalRequested();
    const approvalAction = auth.nextAction!;
    auth.patchAnswers([{ linkId: 'request.notes', answer: [{ valueString: 'changed' }] }], ctx);

    expect(auth.submission.reviewSnapshot?.status).toBe('stale');
    expect(auth.nextAction?.type).toBe('advance_case');
    expect(auth.nextAction?.id).not.toBe(approvalAction.id);
    expect(codeOf(() => auth.confirm(snapshot.nextActionId, ctx))).toBe('review_stale');
  });

  it('refuses approval when the snapshot no longer covers the current versions', () => {
    const { auth, snapshot } = approvalRequested();
    const state = auth.toState();
    state.submission.reviewSnapshot!.covers.attachmentVersion -= 1;
    const loaded = Authorization.rehydrate(state);
    expect(codeOf(() => loaded.confirm(snapshot.nextActionId, createTestContext()))).toBe('review_stale');
  });

  it('is only requested under the requires_confirmation policy', () => {
    const { auth, ctx } = authorizationIn('processing', 'automatic');
    expect(
      codeOf(() => auth.requestFinalApproval({ summary: {}, warnings: [], liveViewUrl: null }, ctx)),
    ).toBe('invalid_transition');
  });

  it('crossFinalBoundary is for the automatic policy and is idempotent', () => {
    const manual = authorizationIn('processing', 'requires_confirmation');
    expect(codeOf(() => manual.auth.crossFinalBoundary(manual.ctx))).toBe('invalid_transition');

    const { auth, ctx } = authorizationIn('processing', 'automatic');
    auth.crossFinalBoundary(ctx);
    const crossed = auth.toState();
    ctx.advance(HOUR);
    auth.crossFinalBoundary(ctx);
    expect(auth.toState()).toEqual(crossed);
    expect(auth.status).toBe('processing');
  });
});

describe('cancel', () => {
  it('keeps receipt and decision history and closes the open action', () => {
    const { auth, ctx } = authorizationIn('waiting_on_payer');
    const receipt = auth.submission.payerReceipt;
    auth.cancel(ctx);
    expect(auth.status).toBe('canceled');
    expect(auth.toState().canceledAt).toEqual(ctx.now);
    expect(auth.submission.payerReceipt).toEqual(receipt);
    expect(auth.nextAction).toBeNull();
    expect(auth.pullEvents().map((e) => e.type)).toEqual([
      'authorization.canceled',
      'authorization.status_changed',
    ]);
  });

  it('makes a current review snapshot stale', () => {
    const { auth, ctx, snapshot } = approvalRequested();
    auth.cancel(ctx);
    expect(auth.submission.reviewSnapshot?.status).toBe('stale');
    expect(codeOf(() => auth.confirm(snapshot.nextActionId, ctx))).toBe('authorization_not_confirmable');
  });

  it.each(['completed', 'canceled'] as const)('cannot cancel when %s', (status) => {
    const { auth, ctx } = authorizationIn(status);
    expect(codeOf(() => auth.cancel(ctx))).toBe('authorization_not_cancelable');
  });
});

describe('pipeline', () => {
  it('portal questions join a "portal" group and block until answered', () => {
    const { auth, ctx } = authorizationIn('processing');
    auth.revealPortalRequirements(
      {
        items: [
          { linkId: 'portal.referrer', text: 'Referring physician', required: true, answerType: 'string' },
        ],
      },
      ctx,
    );
    const portal = auth.questionnaire.groups.find((g) => g.id === PORTAL_GROUP_ID);
    expect(portal).toMatchObject({ title: PORTAL_GROUP_TITLE, items: [{ linkId: 'portal.referrer' }] });
    expect(auth.status).toBe('requires_input');
    expect(auth.requirements.questions).toEqual([
      { linkId: 'portal.referrer', message: 'Referring physician is required.' },
    ]);

    auth.patchAnswers([{ linkId: 'portal.referrer', answer: [{ valueString: 'Dr. Who' }] }], ctx);
    expect(auth.status).toBe('requires_confirmation');
    expect(auth.nextAction?.type).toBe('advance_case');
  });

  it('replaces the questionnaire readState() handed out instead of changing it when the portal adds a question', () => {
    const { auth, ctx } = authorizationIn('processing');
    const before = auth.readState().questionnaire;
    const beforeText = JSON.stringify(before);
    auth.revealPortalRequirements(
      {
        items: [
          { linkId: 'portal.referrer', text: 'Referring physician', required: true, answerType: 'string' },
        ],
      },
      ctx,
    );
    // A presenter's compilation memoised for the old object can never answer for the new questionnaire.
    expect(JSON.stringify(before)).toBe(beforeText);
    expect(auth.readState().questionnaire).not.toBe(before);
    expect(auth.readState().questionnaire.groups.some((g) => g.id === PORTAL_GROUP_ID)).toBe(true);
  });

  it('keeps a shared frozen route template unchanged when the portal adds a question to a case of it', () => {
    const ctx = createTestContext();
    const template = freezeShared(
      JSON.parse(JSON.stringify(createInput().questionnaire)) as AuthorizationState['questionnaire'],
    );
    const auth = Authorization.create(
      createInput({ questionnaire: template, questionnaireResponse: response(completeAnswers()) }),
      ctx,
    );
    // The case holds the route's one template, not a copy of it.
    expect(auth.readState().questionnaire).toBe(template);
    auth.attachFile(clinicalNotesFile, ctx);
    auth.confirm(auth.nextAction?.id, ctx);
    auth.revealPortalRequirements(
      {
        items: [
          { linkId: 'portal.referrer', text: 'Referring physician', required: true, answerType: 'string' },
        ],
      },
      ctx,
    );
    expect(auth.status).toBe('requires_input');
    expect(auth.readState().questionnaire.groups.some((g) => g.id === PORTAL_GROUP_ID)).toBe(true);
    expect(template.groups.some((g) => g.id === PORTAL_GROUP_ID)).toBe(false);
  });

  it('portal issues block until the next customer edit', () => {
    const { auth, ctx } = authorizationIn('processing');
    const issue = {
      code: 'member_not_found',
      message: 'Member not found',
      field: 'patient.memberId',
      severity: 'error' as const,
    };
    auth.revealPortalRequirements({ issues: [issue] }, ctx);
    expect(auth.status).toBe('requires_input');
    expect(auth.requirements.issues).toEqual([issue]);

    auth.patchAnswers([{ linkId: 'patient.memberId', answer: [{ valueString: 'M999' }] }], ctx);
    expect(auth.requirements.issues).toEqual([]);
    expect(auth.status).toBe('requires_confirmation');
  });

  it('does not reveal portal requirements after the final boundary', () => {
    const { auth, ctx } = authorizationIn('processing');
    auth.crossFinalBoundary(ctx);
    expect(codeOf(() => auth.revealPortalRequirements({ documents: [] }, ctx))).toBe('invalid_transition');
  });

  it('manual interaction opens an operator action and resumes to processing', () => {
    const { auth, ctx } = authorizationIn('processing');
    auth.requireManualInteraction(
      { reason: 'captcha', description: 'Solve the CAPTCHA at the payer portal.' },
      ctx,
    );
    expect(auth.status).toBe('requires_action');
    expect(auth.nextAction).toMatchObject({
      type: 'complete_payer_interaction',
      owner: 'operator',
      description: 'Solve the CAPTCHA at the payer portal.',
      resolution: { kind: 'manual_handoff', reason: 'captcha' },
      authorizationVersion: auth.version,
    });
    auth.resumeAfterManualInteraction(ctx);
    expect(auth.status).toBe('processing');
    expect(auth.nextAction).toBeNull();
  });

  it('a receipt needs the final boundary to be crossed', () => {
    const { auth, ctx } = authorizationIn('processing');
    const error = (() => {
      try {
        auth.recordReceipt(testReceipt(), ctx);
      } catch (e) {
        return e as DomainError;
      }
      return null;
    })();
    expect(error?.code).toBe('invalid_transition');
    expect(error?.details).toMatchObject({ from: 'processing', to: 'waiting_on_payer' });
  });

  it('records the receipt and a 7-day decision due date for standard requests', () => {
    const { auth, ctx } = authorizationIn('processing');
    crossBoundary(auth, ctx);
    const receivedAt = new Date('2026-03-30T15:00:00.000Z');
    auth.recordReceipt(testReceipt(receivedAt), ctx);
    expect(auth.status).toBe('waiting_on_payer');
    expect(auth.submission.payerReceipt?.receivedAt).toEqual(receivedAt);
    expect(auth.decisionDueAt).toEqual(new Date('2026-04-06T15:00:00.000Z'));
    expect(auth.pullEvents()).toContainEqual(
      expect.objectContaining({ type: 'authorization.receipt_recorded', decisionDueAt: auth.decisionDueAt }),
    );
  });

  it('uses 72 hours when the request is expedited', () => {
    const { auth, ctx } = authorizationIn('requires_confirmation');
    auth.patchAnswers([{ linkId: 'request.expedited', answer: [{ valueBoolean: true }] }], ctx);
    auth.confirm(auth.nextAction!.id, ctx);
    crossBoundary(auth, ctx);
    auth.recordReceipt(testReceipt(new Date('2026-03-02T10:00:00.000Z')), ctx);
    expect(auth.decisionDueAt).toEqual(new Date('2026-03-05T10:00:00.000Z'));
  });

  it.each(['approved', 'denied', 'modified', 'not_required'] as const)(
    'a %s decision completes the case',
    (outcome) => {
      const { auth, ctx } = authorizationIn('waiting_on_payer');
      const decision = testDecision({
        outcome,
        denialReasons: outcome === 'denied' ? ['Not medically necessary'] : [],
      });
      auth.recordDecision(decision, ctx);
      const state = auth.toState();
      expect(state).toMatchObject({ status: 'completed', outcome, completedAt: ctx.now, nextAction: null });
      expect(state.submission.decision).toEqual(decision);
    },
  );

  it('a denial must carry a reason', () => {
    const { auth, ctx } = authorizationIn('waiting_on_payer');
    expect(
      codeOf(() => auth.recordDecision(testDecision({ outcome: 'denied', denialReasons: [] }), ctx)),
    ).toBe('invalid_transition');
    expect(auth.status).toBe('waiting_on_payer');
  });

  it('a payer request for more information sends the case round again, keeping the receipt', () => {
    const { auth, ctx } = authorizationIn('waiting_on_payer', 'requires_confirmation');
    const receipt = auth.submission.payerReceipt;
    auth.requestMoreInformation(
      { type: 'lab_results', label: 'Lab results', message: 'Attach lab results.' },
      ctx,
    );

    expect(auth.status).toBe('requires_input');
    expect(auth.nextAction?.type).toBe('provide_requirements');
    expect(auth.requirements.documents).toEqual([{ type: 'lab_results', message: 'Attach lab results.' }]);
    expect(auth.submission).toMatchObject({ payerReceipt: receipt, reviewSnapshot: null });
    expect(auth.finalBoundaryCrossedAt).toBeNull();

    auth.attachFile(
      { fileId: 'file_2', documentTypes: ['lab_results'], label: 'labs.pdf', description: null },
      ctx,
    );
    auth.confirm(auth.nextAction!.id, ctx);
    crossBoundary(auth, ctx);
    auth.recordReceipt(testReceipt(ctx.now), ctx);
    expect(auth.status).toBe('waiting_on_payer');
  });

  it.each(['processing', 'requires_action'] as const)('fails from %s with the failure recorded', (status) => {
    const { auth, ctx } = authorizationIn(status);
    auth.fail({ code: 'portal_unavailable', message: 'Portal down', details: { attempts: 3 } }, ctx);
    expect(auth.toState()).toMatchObject({
      status: 'completed',
      outcome: 'failed',
      failure: { code: 'portal_unavailable', message: 'Portal down', details: { attempts: 3 } },
      completedAt: ctx.now,
      nextAction: null,
    });
  });
});

describe('concurrency and persistence', () => {
  it('assertVersion throws version_conflict with both versions', () => {
    const { auth } = authorizationIn('requires_input');
    expect(() => auth.assertVersion(auth.version)).not.toThrow();
    let error: unknown;
    try {
      auth.assertVersion(auth.version - 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(VersionConflictError);
    expect((error as VersionConflictError).details).toEqual({
      expectedVersion: auth.version - 1,
      actualVersion: auth.version,
    });
  });

  it('tracks the persisted version across rehydrate, mutation and markPersisted', () => {
    const { auth, ctx } = authorizationIn('requires_input');
    const loaded = Authorization.rehydrate(auth.toState());
    expect(loaded.persistedVersion).toBe(auth.version);
    loaded.attachFile(clinicalNotesFile, ctx);
    expect(loaded.persistedVersion).toBe(auth.version);
    loaded.markPersisted();
    expect(loaded.persistedVersion).toBe(loaded.version);
  });

  it('round-trips through toState/rehydrate and hands out copies only', () => {
    const { auth } = authorizationIn('requires_confirmation');
    const state = auth.toState();
    expect(Authorization.rehydrate(state).toState()).toEqual(state);

    state.questionnaireResponse.item.length = 0;
    state.attachments[0]!.documentTypes.push('tampered');
    auth.questionnaire.groups.length = 0;
    auth.nextAction!.id = 'tampered';
    expect(auth.toState()).not.toEqual(state);
    expect(auth.questionnaire.groups).toHaveLength(2);
    expect(auth.nextAction?.id).not.toBe('tampered');
  });

  it('leaves the aggregate untouched when the evaluator throws mid-mutation', () => {
    const { auth, ctx } = authorizationIn('requires_input');
    const before = auth.toState();
    const failing = {
      ...ctx,
      evaluate: () => {
        throw new Error('engine down');
      },
    };
    expect(() => auth.attachFile(clinicalNotesFile, failing)).toThrow('engine down');
    expect(auth.toState()).toEqual(before);
    expect(auth.pullEvents()).toEqual([]);
  });
});
