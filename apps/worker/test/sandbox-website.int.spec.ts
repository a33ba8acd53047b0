import { Harness } from './support/harness';
import { PayerWebsite } from './support/payer-website';
import { SpyPayerPortal } from './support/portals';

/*
 * The sandbox portal as the worker runs it with PAYER_SANDBOX_URL set: a real browser drives the simulated
 * payer website (decision 0017). Lean on purpose (one website and one browser for the file, the cases
 * concurrent): the scenarios' logic is covered against the stateless simulator in pipeline-scenarios.
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

/** A browser run signs in anew each time; a loaded machine makes a case take tens of seconds. */
const CASE_TIMEOUT_MS = 150_000;
const PAYER_REFERENCE = /^PSX-[0-9A-F]{10}$/;
const submissionsAtPayer = (key: string) => PayerWebsite.submissionCount(h.dataSource, key);

describe('the sandbox through the browser and the simulated payer website', () => {
  it.concurrent(
    'approved: one submission reaches the website; the receipt carries its reference; the decision follows',
    async () => {
      const ready = await h.readyCase('SBX-APPROVED');
      await h.confirm(ready.id);

      const done = await h.waitForStatus(ready.id, 'completed', CASE_TIMEOUT_MS);
      expect(done.outcome).toBe('approved');
      const [submission, ...more] = spy.submissions(ready.id);
      expect(more).toEqual([]);
      expect(done.submission.payerReceipt).toMatchObject({
        referenceNumber: expect.stringMatching(PAYER_REFERENCE),
        channel: 'sandbox_portal',
      });
      expect(await submissionsAtPayer(submission!.idempotencyKey!)).toBe(1);
      expect(done.submission.decision?.authorizationNumber).toMatch(/^PSA-[0-9A-F]{10}$/);
    },
    CASE_TIMEOUT_MS,
  );

  it.concurrent(
    'failed: the website refuses the request; the case fails and nothing was submitted',
    async () => {
      const ready = await h.readyCase('SBX-FAILED');
      await h.confirm(ready.id);

      const done = await h.waitForStatus(ready.id, 'completed', CASE_TIMEOUT_MS);
      expect(done.outcome).toBe('failed');
      expect(done.failure).toMatchObject({ code: 'payer_rejected_submission' });
      const [attempt] = spy.callsTo('submit', ready.id);
      expect(await submissionsAtPayer(attempt!.idempotencyKey!)).toBe(0);
    },
    CASE_TIMEOUT_MS,
  );

  it.concurrent(
    'manual_handoff: the human check goes to an operator, who submits on the website; reconciliation finds it',
    async () => {
      const ready = await h.readyCase('SBX-MANUAL-HANDOFF');
      await h.confirm(ready.id);

      const needsHuman = await h.waitForStatus(ready.id, 'requires_action', CASE_TIMEOUT_MS);
      expect(needsHuman.nextAction).toMatchObject({
        type: 'complete_payer_interaction',
        owner: 'operator',
        resolution: { kind: 'manual_handoff', reason: 'portal_requires_human' },
      });
      const [automated] = spy.callsTo('submit', ready.id);
      expect(await submissionsAtPayer(automated!.idempotencyKey!)).toBe(0);

      // The operator answers the website's human check and reports the reference its confirmation showed.
      const reference = await website.submitAsOperator(spy.cases.get(ready.id)!, `${ready.id}:operator`);
      await h.completeManualHandoff(ready.id, reference);
      const done = await h.waitForStatus(ready.id, 'completed', CASE_TIMEOUT_MS);
      expect(done.outcome).toBe('approved');
      expect(done.submission.payerReceipt).toMatchObject({ referenceNumber: reference });
      expect(spy.callsTo('submit', ready.id)).toHaveLength(1);
      expect(spy.lookups(ready.id).map((c) => c.referenceNumber)).toEqual([reference]);
    },
    CASE_TIMEOUT_MS,
  );
});
