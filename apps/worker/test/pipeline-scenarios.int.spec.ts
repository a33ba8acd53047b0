import { fileBlobKey, type Authorization, type FinalSubmissionPolicy } from '@prior-auth/domain';
import { SANDBOX_PORTAL_QUESTION_LINK_ID, SANDBOX_REQUESTED_DOCUMENT_TYPE } from '@prior-auth/payer-portal';
import { Harness } from './support/harness';
import { PayerWebsite } from './support/payer-website';
import { SpyPayerPortal } from './support/portals';

/*
 * Every sandbox scenario of decision 0026, under both final-submission policies, driven through the domain's
 * customer-side use cases and run by an in-process worker on PostgreSQL, its sandbox portal a real browser on
 * the simulated payer website (decision 0022).
 */

let h: Harness;
let spy: SpyPayerPortal;
let website: PayerWebsite;

beforeAll(async () => {
  [h, website] = await Promise.all([Harness.open(), PayerWebsite.start()]);
  spy = new SpyPayerPortal(website.portal());
  await h.startWorker({ portal: spy });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await website?.close();
});

const PAYER_REFERENCE = /^PSX-[0-9A-F]{10}$/;
const submissionsAtPayer = (key: string) => PayerWebsite.submissionCount(h.dataSource, key);

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

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PDF_MAGIC = Buffer.from('%PDF-');

/** The bytes a download of the file serves: its verified content (decision 0006), read from the store. */
async function downloadedBytes(fileId: unknown): Promise<{ contentType: string; bytes: Buffer }> {
  expect(fileId).toEqual(expect.stringMatching(/^file_/));
  const file = await h.file(fileId as string);
  const { checksumSha256, purpose, status, organizationId, environment } = file.toState();
  expect({ purpose, status, organizationId, environment }).toEqual({
    purpose: 'payer_evidence',
    status: 'ready',
    ...h.scope,
  });
  const bytes = await h.blobBytes(fileBlobKey(file.storageKey, { checksumSha256: checksumSha256! }));
  expect(bytes.length).toBe(file.sizeBytes);
  return { contentType: file.contentType, bytes };
}

/** Every receipt links an image of the confirmation, whose HTML, kept beside it, shows the reference. */
async function expectConfirmationEvidence(done: Authorization): Promise<void> {
  const receipt = done.submission.payerReceipt!;
  const linked = await downloadedBytes(receipt.details.confirmationFileId);
  expect(linked.contentType).toBe('image/png');
  expect(linked.bytes.subarray(0, PNG_MAGIC.length)).toEqual(PNG_MAGIC);

  const evidence = await h.evidence(done.id);
  expect(evidence.map((e) => e.kind)).toEqual(
    expect.arrayContaining(['confirmation_html', 'confirmation_image', 'confirmation_pdf']),
  );
  const html = evidence.find((e) => e.kind === 'confirmation_html')!;
  expect((await downloadedBytes(html.fileId)).bytes.toString('utf8')).toContain(receipt.referenceNumber!);
  const pdf = evidence.find((e) => e.kind === 'confirmation_pdf')!;
  expect((await downloadedBytes(pdf.fileId)).bytes.subarray(0, PDF_MAGIC.length)).toEqual(PDF_MAGIC);
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
      referenceNumber: expect.stringMatching(PAYER_REFERENCE),
      channel: 'sandbox_portal',
    });
    expect(await submissionsAtPayer(submission!.idempotencyKey!)).toBe(1);
    expect(done.submission.decision).toMatchObject({ outcome });
    if (outcome === 'denied') expect(done.submission.decision!.denialReasons.length).toBeGreaterThan(0);
    if (outcome === 'modified') expect(done.submission.decision!.modifications.length).toBeGreaterThan(0);
    const events = await h.eventTypes(ready.id);
    expect(countOf(events, 'authorization.final_boundary_crossed')).toBe(1);
    expect(countOf(events, 'authorization.receipt_recorded')).toBe(1);
    expect(countOf(events, 'authorization.decision_recorded')).toBe(1);

    // Evidence (decision 0020): the confirmation page and the decision letter, as files of the case's tenant.
    await expectConfirmationEvidence(done);
    if (outcome === 'approved') {
      const letter = await downloadedBytes(done.submission.decision!.details.letterFileId);
      expect(letter.contentType).toBe('application/pdf');
      expect(letter.bytes.subarray(0, PDF_MAGIC.length)).toEqual(PDF_MAGIC);
      expect((await h.evidence(done.id)).filter((e) => e.kind === 'decision_letter')).toHaveLength(1);
    }
  });

  it('failed: the payer rejects the submission and the case completes as failed', async () => {
    const ready = await h.readyCase('SBX-FAILED', policy);
    await confirmThroughSubmission(ready.id, policy);

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('failed');
    expect(done.failure).toMatchObject({ code: 'payer_rejected_submission' });
    expect(done.submission.payerReceipt).toBeNull();
    const attempts = spy.callsTo('submit', ready.id);
    expect(attempts.map((c) => c.errorCode)).toEqual(['payer_rejected_submission']);
    expect(await submissionsAtPayer(attempts[0]!.idempotencyKey!)).toBe(0);
    // The use case failed the case: its job completed, it was not retried. The job is marked done just after
    // the case's commit shows.
    for (const job of await h.settledJobs(ready.id)) {
      expect(job).toMatchObject({ type: 'process', attempts: 1, state: 'completed' });
    }
  });

  it('pending: the receipt is recorded and the case stays waiting_on_payer, polled again and again', async () => {
    const ready = await h.readyCase('SBX-PENDING', policy);
    await confirmThroughSubmission(ready.id, policy);

    const waiting = await h.waitForStatus(ready.id, 'waiting_on_payer');
    expect(waiting.submission.payerReceipt?.referenceNumber).toMatch(PAYER_REFERENCE);
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
    expect(await submissionsAtPayer(submissions[1]!.idempotencyKey!)).toBe(1);
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
    // What stopped the automation is kept: the human check as the browser saw it.
    const [humanCheck] = await h.evidence(ready.id);
    expect(humanCheck).toMatchObject({ kind: 'step_screenshot', step: 'human_check' });
    const screenshot = await downloadedBytes(humanCheck!.fileId);
    expect(screenshot.bytes.subarray(0, PNG_MAGIC.length)).toEqual(PNG_MAGIC);

    // The operator answers the website's human check and reports the reference its confirmation showed.
    const reference = await website.submitAsOperator(spy.cases.get(ready.id)!, `${ready.id}:operator`);
    await h.completeManualHandoff(ready.id, reference);
    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    expect(done.submission.payerReceipt).toMatchObject({ referenceNumber: reference });
    // The receipt found at the payer links that request's page as the payer showed it (decision 0020).
    await expectConfirmationEvidence(done);
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
    // Decision 0007: three checks at the payer, then back to a human.
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
