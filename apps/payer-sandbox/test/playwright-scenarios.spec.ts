import { type PortalCase, type SubmitResult } from '@prior-auth/domain';
import { type PlaywrightPayerPortal } from '@prior-auth/payer-portal';
import {
  attachment,
  portalCase,
  portalFor,
  startTestSandbox,
  useSandboxAndBrowser,
  uniqueKey,
} from './support/portal-harness';

// The browser adapter against the real simulated website, one scenario of decision 0013 per case.
const fixture = useSandboxAndBrowser();
let portal: PlaywrightPayerPortal;

beforeAll(() => {
  portal = portalFor(fixture.sandbox, fixture.browser);
});

const receiptOf = (result: SubmitResult) => {
  if (!('receipt' in result)) throw new Error(`expected a receipt, got ${JSON.stringify(result)}`);
  return result.receipt;
};

async function submitted(
  memberId: string,
  extra?: Parameters<typeof portalCase>[1],
): Promise<{ portal: PortalCase; key: string; result: SubmitResult }> {
  const theCase = portalCase(memberId, extra);
  const key = uniqueKey(theCase);
  const result = await portal.submit(theCase, { idempotencyKey: key });
  if ('receipt' in result)
    theCase.receipt = {
      referenceNumber: result.receipt.referenceNumber,
      receivedAt: result.receipt.receivedAt,
    };
  return { portal: theCase, key, result };
}

describe('PlaywrightPayerPortal on the simulated payer', () => {
  it.concurrent(
    'approved: one submission with a confirmation as evidence, then an approval with its letter',
    async () => {
      const theCase = portalCase('SBX-APPROVED');
      const key = uniqueKey(theCase);
      const result = await portalFor(fixture.sandbox, fixture.browser, { stepScreenshots: true }).submit(
        theCase,
        {
          idempotencyKey: key,
        },
      );
      const receipt = receiptOf(result);
      theCase.receipt = { referenceNumber: receipt.referenceNumber, receivedAt: receipt.receivedAt };
      expect(result.evidence!.filter((e) => e.kind === 'step_screenshot').map((e) => e.step)).toEqual(
        expect.arrayContaining(['member_found', 'service_details', 'clinical_information', 'review']),
      );
      expect(receipt.referenceNumber).toMatch(/^PSX-[0-9A-F]{10}$/);
      expect(receipt.channel).toBe('payer_portal');
      const kinds = (result.evidence ?? []).map((e) => e.kind);
      expect(kinds).toEqual(
        expect.arrayContaining([
          'step_screenshot',
          'confirmation_html',
          'confirmation_image',
          'confirmation_pdf',
        ]),
      );
      const html = result.evidence!.find((e) => e.kind === 'confirmation_html')!;
      expect(Buffer.from(html.bytes).toString('utf8')).toContain(receipt.referenceNumber!);
      const png = result.evidence!.find((e) => e.kind === 'confirmation_image')!;
      expect(Buffer.from(png.bytes).subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(
        Buffer.from(result.evidence!.find((e) => e.kind === 'confirmation_pdf')!.bytes)
          .subarray(0, 5)
          .toString('latin1'),
      ).toBe('%PDF-');
      expect(await fixture.sandbox.submissionCount(key)).toBe(1);

      const poll = await portal.pollDecision(theCase);
      if (poll.state !== 'decided') throw new Error(`expected a decision, got ${poll.state}`);
      expect(poll.decision).toMatchObject({
        outcome: 'approved',
        payerStatusText: 'Approved',
        denialReasons: [],
      });
      expect(poll.decision.authorizationNumber).toMatch(/^PSA-/);
      expect(poll.decision.effectiveFrom).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const letter = poll.evidence!.find((e) => e.kind === 'decision_letter')!;
      expect(letter.contentType).toBe('application/pdf');
      expect(Buffer.from(letter.bytes).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    },
  );

  it.concurrent('denied, modified and not_required are read from the status page', async () => {
    const decided = await Promise.all(
      ['SBX-DENIED', 'SBX-MODIFIED', 'SBX-NOT-REQUIRED'].map(async (memberId) => {
        const { portal: theCase } = await submitted(memberId);
        const poll = await portal.pollDecision(theCase);
        if (poll.state !== 'decided') throw new Error(`expected a decision for ${memberId}`);
        return poll.decision;
      }),
    );
    expect(decided[0]).toMatchObject({ outcome: 'denied', authorizationNumber: null });
    expect(decided[0]!.denialReasons[0]).toContain('medical necessity');
    expect(decided[1]).toMatchObject({ outcome: 'modified', payerStatusText: 'Approved with modifications' });
    expect(decided[1]!.modifications).toHaveLength(1);
    expect(decided[2]).toMatchObject({ outcome: 'not_required', authorizationNumber: null });
  });

  it.concurrent('pending stays pending; a decision is not visible before the configured delay', async () => {
    const { portal: theCase } = await submitted('SBX-PENDING');
    expect(await portal.pollDecision(theCase)).toEqual({ state: 'pending' });
    const slow = await startTestSandbox({ decisionDelayMs: 3_600_000 });
    try {
      const slowPortal = portalFor(slow, fixture.browser);
      const approvedCase = portalCase('SBX-APPROVED');
      const result = await slowPortal.submit(approvedCase, { idempotencyKey: uniqueKey(approvedCase) });
      approvedCase.receipt = {
        referenceNumber: receiptOf(result).referenceNumber,
        receivedAt: receiptOf(result).receivedAt,
      };
      expect(await slowPortal.pollDecision(approvedCase)).toEqual({ state: 'pending' });
    } finally {
      await slow.close();
    }
  });

  it.concurrent('more_info asks for records; a new request carrying them is approved', async () => {
    const first = await submitted('SBX-MORE-INFO');
    const poll = await portal.pollDecision(first.portal);
    expect(poll).toMatchObject({ state: 'more_information', document: { type: 'payer_requested_records' } });
    const second = await submitted('SBX-MORE-INFO', { attachments: [attachment('payer_requested_records')] });
    expect(await portal.pollDecision(second.portal)).toMatchObject({
      state: 'decided',
      decision: { outcome: 'approved' },
    });
  });

  it.concurrent(
    'portal_question: discovery finds the extra field; the form refuses the request until it is answered',
    async () => {
      const theCase = portalCase('SBX-PORTAL-QUESTION');
      const discovery = await portal.discover(theCase);
      expect(discovery.items).toEqual([
        expect.objectContaining({
          linkId: 'portal.plannedStartDate',
          required: true,
          answerType: 'date',
          min: '2000-01-01',
        }),
      ]);
      await expect(portal.submit(theCase, { idempotencyKey: uniqueKey(theCase) })).rejects.toMatchObject({
        code: 'portal_validation_failed',
        transient: false,
      });
      const answered = await submitted('SBX-PORTAL-QUESTION', {
        answers: { 'portal.plannedStartDate': '2027-01-15' },
      });
      expect(receiptOf(answered.result).referenceNumber).toMatch(/^PSX-/);
      expect(await portal.discover(answered.portal)).toMatchObject({ items: [] });
    },
  );

  it.concurrent(
    'failed: the portal rejects the submission permanently and nothing is submitted',
    async () => {
      const theCase = portalCase('SBX-FAILED');
      const key = uniqueKey(theCase);
      await expect(portal.submit(theCase, { idempotencyKey: key })).rejects.toMatchObject({
        code: 'payer_rejected_submission',
        transient: false,
      });
      expect(await fixture.sandbox.submissionCount(key)).toBe(0);
      expect(await fixture.sandbox.rejectionCount(key)).toBe(1);
    },
  );

  it.concurrent('manual_handoff: the human check is handed to a person, nothing is submitted', async () => {
    const theCase = portalCase('SBX-MANUAL-HANDOFF');
    const key = uniqueKey(theCase);
    const result = await portal.submit(theCase, { idempotencyKey: key });
    expect(result).toMatchObject({ needsHuman: { reason: 'portal_requires_human' } });
    expect((result.evidence ?? []).map((e) => e.step)).toContain('human_check');
    expect(await fixture.sandbox.submissionCount(key)).toBe(0);
  });

  it.concurrent(
    'validate reports an unknown member; findSubmission finds by key and by reference, and nothing else',
    async () => {
      expect((await portal.validate(portalCase('SBX-UNKNOWN-MEMBER'))).issues).toEqual([
        expect.objectContaining({ code: 'member_not_found', field: 'patient.memberId', severity: 'error' }),
      ]);
      expect(await portal.validate(portalCase('SBX-APPROVED'))).toEqual({ issues: [] });
      const { portal: theCase, key, result } = await submitted('SBX-APPROVED');
      const reference = receiptOf(result).referenceNumber!;
      // Each found request comes with its page at the payer: the HTML and a PNG of it, at least.
      const capturedPage = expect.arrayContaining([
        expect.objectContaining({ kind: 'confirmation_html', contentType: 'text/html' }),
        expect.objectContaining({ kind: 'confirmation_image', contentType: 'image/png' }),
      ]);
      expect(await portal.findSubmission(theCase, { idempotencyKey: key })).toMatchObject({
        receipt: { referenceNumber: reference },
        evidence: capturedPage,
      });
      expect(
        await portal.findSubmission(theCase, { idempotencyKey: 'other', referenceNumber: reference }),
      ).toMatchObject({ receipt: { referenceNumber: reference }, evidence: capturedPage });
      expect(await portal.findSubmission(theCase, { idempotencyKey: `${key}-never` })).toBeNull();
      expect(
        await portal.findSubmission(theCase, { idempotencyKey: key, referenceNumber: 'PSX-0000000000' }),
      ).toBeNull();
    },
  );
});
