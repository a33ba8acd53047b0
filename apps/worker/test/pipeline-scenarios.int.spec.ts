import { type FinalSubmissionPolicy } from '@prior-auth/domain';
import {
  SANDBOX_PORTAL_QUESTION_LINK_ID,
  SANDBOX_REQUESTED_DOCUMENT_TYPE,
  SandboxPayerPortal,
  sandboxManualReferenceNumber,
  sandboxReferenceNumber,
} from '@prior-auth/payer-portal';
import { Harness } from './support/harness';
import { SpyPayerPortal } from './support/portals';

/*
 * Every sandbox scenario of decision 13, under both final-submission policies, driven through the domain's
 * customer-side use cases and run by an in-process worker on PostgreSQL with the sandbox payer.
 */

let h: Harness;
let spy: SpyPayerPortal;

beforeAll(async () => {
  h = await Harness.open();
  spy = new SpyPayerPortal(new SandboxPayerPortal({ decisionDelayMs: 40 }));
  await h.startWorker({ portal: spy });
});
afterAll(() => h.close());

const POLICIES: FinalSubmissionPolicy[] = ['automatic', 'requires_confirmation'];

/**
 * Confirms the open advance_case; under requires_confirmation also approves the final review once the worker
 * has prepared it (checking that nothing reached the payer before the approval).
 */
async function confirmThroughSubmission(authorizationId: string, policy: FinalSubmissionPolicy) {
  const submittedBefore = spy.callsTo('submit', authorizationId).length;
  await h.confirm(authorizationId);
  if (policy === 'requires_confirmation') {
    const review = await h.waitForAction(authorizationId, 'approve_submission');
    expect(review.status).toBe('requires_confirmation');
    expect(review.submission.reviewSnapshot).toMatchObject({
      status: 'current',
      kind: 'final_submission',
      summary: { channel: 'sandbox_portal', serviceCode: 'E0601' },
      warnings: [expect.stringMatching(/^Sandbox:/)],
    });
    expect(spy.callsTo('submit', authorizationId)).toHaveLength(submittedBefore);
    await h.confirm(authorizationId);
  }
}

const countOf = (types: string[], type: string) => types.filter((t) => t === type).length;

describe.each(POLICIES)('policy %s', (policy) => {
  it.each([
    ['approved', 'SBX-APPROVED', 'approved'],
    ['denied', 'SBX-DENIED', 'denied'],
    ['modified', 'SBX-MODIFIED', 'modified'],
    ['not_required', 'SBX-NOT-REQUIRED', 'not_required'],
    ['any other member ID', 'W123456789', 'approved'],
  ])('%s: one submission, a receipt, then the decision', async (_name, memberId, outcome) => {
    const ready = await h.readyCase(memberId, policy);
    await confirmThroughSubmission(ready.id, policy);

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe(outcome);
    expect(done.toState().completedAt).not.toBeNull();
    const [submission, ...more] = spy.submissions(ready.id);
    expect(more).toEqual([]);
    expect(submission!.idempotencyKey).toBe(
      `${ready.id}:${done.finalBoundaryCrossedAt!.getTime().toString(36)}`,
    );
    expect(done.submission.payerReceipt).toMatchObject({
      referenceNumber: sandboxReferenceNumber(submission!.idempotencyKey!),
      receivedAt: done.finalBoundaryCrossedAt,
      channel: 'sandbox_portal',
    });
    expect(done.submission.decision).toMatchObject({ outcome });
    if (outcome === 'denied') expect(done.submission.decision!.denialReasons.length).toBeGreaterThan(0);
    if (outcome === 'modified') expect(done.submission.decision!.modifications.length).toBeGreaterThan(0);
    const events = await h.eventTypes(ready.id);
    expect(countOf(events, 'authorization.final_boundary_crossed')).toBe(1);
    expect(countOf(events, 'authorization.receipt_recorded')).toBe(1);
    expect(countOf(events, 'authorization.decision_recorded')).toBe(1);
  });

  it('failed: the payer rejects the submission and the case completes as failed', async () => {
    const ready = await h.readyCase('SBX-FAILED', policy);
    await confirmThroughSubmission(ready.id, policy);

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('failed');
    expect(done.failure).toMatchObject({ code: 'payer_rejected_submission' });
    expect(done.submission.payerReceipt).toBeNull();
    expect(spy.callsTo('submit', ready.id).map((c) => c.errorCode)).toEqual(['payer_rejected_submission']);
    // The use case failed the case: its job completed, it was not retried.
    for (const job of await h.jobs(ready.id)) {
      expect(job).toMatchObject({ type: 'process', attempts: 1, state: 'completed' });
    }
  });

  it('pending: the receipt is recorded and the case stays waiting_on_payer, polled again and again', async () => {
    const ready = await h.readyCase('SBX-PENDING', policy);
    await confirmThroughSubmission(ready.id, policy);

    const waiting = await h.waitForStatus(ready.id, 'waiting_on_payer');
    expect(waiting.submission.payerReceipt?.referenceNumber).toMatch(/^SBX-/);
    expect(waiting.decisionDueAt).not.toBeNull();
    await h.waitFor(ready.id, () => spy.callsTo('pollDecision', ready.id).length >= 3, 'polled three times');
    const still = await h.get(ready.id);
    expect(still.status).toBe('waiting_on_payer');
    expect(still.submission.decision).toBeNull();
    expect(spy.submissions(ready.id)).toHaveLength(1);
  });

  it('more_info: the payer asks for a document after receipt; once attached, a new round is approved', async () => {
    const ready = await h.readyCase('SBX-MORE-INFO', policy);
    await confirmThroughSubmission(ready.id, policy);

    const asked = await h.waitForStatus(ready.id, 'requires_input');
    expect(asked.nextAction?.type).toBe('provide_requirements');
    expect(asked.requirements.documents).toEqual([
      { type: SANDBOX_REQUESTED_DOCUMENT_TYPE, message: expect.any(String) },
    ]);
    const firstReceipt = asked.submission.payerReceipt;
    expect(firstReceipt).not.toBeNull();
    expect(asked.finalBoundaryCrossedAt).toBeNull();

    const provided = await h.attach(ready.id, [SANDBOX_REQUESTED_DOCUMENT_TYPE]);
    expect(provided.status).toBe('requires_confirmation');
    await confirmThroughSubmission(ready.id, policy);

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    const submissions = spy.submissions(ready.id);
    expect(submissions).toHaveLength(2);
    expect(submissions[0]!.idempotencyKey).not.toBe(submissions[1]!.idempotencyKey);
    expect(done.submission.payerReceipt?.referenceNumber).toBe(
      sandboxReferenceNumber(submissions[1]!.idempotencyKey!),
    );
    expect(done.submission.payerReceipt?.referenceNumber).not.toBe(firstReceipt!.referenceNumber);
  });

  it('portal_question: processing reveals a question; once answered the case proceeds to approval', async () => {
    const ready = await h.readyCase('SBX-PORTAL-QUESTION', policy);
    await h.confirm(ready.id);

    const asked = await h.waitForStatus(ready.id, 'requires_input');
    expect(asked.nextAction?.type).toBe('provide_requirements');
    expect(asked.requirements.questions.map((q) => q.linkId)).toEqual([SANDBOX_PORTAL_QUESTION_LINK_ID]);
    expect(asked.questionnaire.groups.find((g) => g.id === 'portal')?.items.map((i) => i.linkId)).toEqual([
      SANDBOX_PORTAL_QUESTION_LINK_ID,
    ]);
    expect(asked.finalBoundaryCrossedAt).toBeNull();
    expect(spy.callsTo('submit', ready.id)).toEqual([]);

    const answered = await h.patch(ready.id, [
      { linkId: SANDBOX_PORTAL_QUESTION_LINK_ID, answer: [{ valueDate: '2026-04-01' }] },
    ]);
    expect(answered.status).toBe('requires_confirmation');
    await confirmThroughSubmission(ready.id, policy);

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    expect(spy.callsTo('discover', ready.id)).toHaveLength(2);
    expect(spy.submissions(ready.id)).toHaveLength(1);
  });

  it('manual_handoff: the portal needs a human; the operator’s submission is found and decided', async () => {
    const ready = await h.readyCase('SBX-MANUAL-HANDOFF', policy);
    await confirmThroughSubmission(ready.id, policy);

    const needsHuman = await h.waitForStatus(ready.id, 'requires_action');
    expect(needsHuman.nextAction).toMatchObject({
      type: 'complete_payer_interaction',
      owner: 'operator',
      resolution: { kind: 'manual_handoff', reason: 'portal_requires_human' },
    });
    expect(needsHuman.submission.payerReceipt).toBeNull();

    // The reference the sandbox payer's session page showed the operator.
    const reference = sandboxManualReferenceNumber(ready.id);
    await h.completeManualHandoff(ready.id, reference);
    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    expect(done.submission.payerReceipt).toMatchObject({ referenceNumber: reference });
    expect(spy.callsTo('submit', ready.id)).toHaveLength(1);
    expect(spy.lookups(ready.id).map((c) => c.referenceNumber)).toEqual([reference]);
  });

  it('manual_handoff: a submission the payer does not show sends the case back to a human', async () => {
    const ready = await h.readyCase('SBX-MANUAL-HANDOFF', policy);
    await confirmThroughSubmission(ready.id, policy);
    await h.waitForStatus(ready.id, 'requires_action');

    await h.completeManualHandoff(ready.id, null);
    const back = await h.waitFor(
      ready.id,
      (a) =>
        a.status === 'requires_action' && a.nextAction?.resolution?.reason === 'manual_submission_not_found',
      'back in requires_action',
    );
    expect(back.submission.payerReceipt).toBeNull();
    // Decision 7: three checks at the payer, then back to a human.
    expect(spy.lookups(ready.id)).toHaveLength(3);
    expect(spy.callsTo('submit', ready.id)).toHaveLength(1);
  });
});

describe('final review', () => {
  it('review_stale: answers changed after the snapshot refuse the old approval; a new review is approved', async () => {
    const ready = await h.readyCase('SBX-APPROVED', 'requires_confirmation');
    await h.confirm(ready.id);
    const review = await h.waitForAction(ready.id, 'approve_submission');

    await h.patch(ready.id, [{ linkId: 'patient.firstName', answer: [{ valueString: 'Augusta' }] }]);
    await expect(h.confirm(ready.id, review.nextAction!.id)).rejects.toMatchObject({ code: 'review_stale' });
    const edited = await h.get(ready.id);
    expect(edited.status).toBe('requires_confirmation');
    expect(edited.nextAction?.type).toBe('advance_case');
    expect(edited.submission.reviewSnapshot?.status).toBe('stale');
    expect(spy.callsTo('submit', ready.id)).toEqual([]);

    await confirmThroughSubmission(ready.id, 'requires_confirmation');
    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    expect(done.submission.reviewSnapshot?.status).toBe('approved');
    expect(done.submission.reviewSnapshot?.questionnaireResponse.item).toContainEqual({
      linkId: 'patient.firstName',
      answer: [{ valueString: 'Augusta' }],
    });
    expect(spy.submissions(ready.id)).toHaveLength(1);
  });
});
