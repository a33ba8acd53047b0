import { Harness } from './support/harness';
import { PayerWebsite } from './support/payer-website';
import { Gate, SpyPayerPortal } from './support/portals';

/*
 * Exactly one submission per approval (decision 0008) with several workers on one queue, and with customers
 * cancelling while the worker is talking to the payer: the simulated payer website through the browser.
 */

let h: Harness;
let spy: SpyPayerPortal;
let website: PayerWebsite;

beforeAll(async () => {
  website = await PayerWebsite.start();
}, 60_000);
afterAll(() => website?.close());
beforeEach(async () => {
  h = await Harness.open();
  spy = new SpyPayerPortal(website.portal());
});
afterEach(() => h.close());

/** Browser runs on a loaded machine: a batch of cases takes a minute or more. */
const BATCH_TIMEOUT_MS = 300_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * This tenant's jobs but the due-date checks, which wait for the decision's due date, days away
 * (docs/decisions/0031-events-and-webhooks.md).
 */
const pipelineJobs = async () => (await h.jobs()).filter((job) => job.type !== 'decision_overdue');

/** Waits until none of this tenant's pipeline jobs is still due or running. */
async function allJobsSettled(timeoutMs = BATCH_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = (await pipelineJobs()).filter((job) => job.state !== 'completed' && job.state !== 'failed');
    if (open.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${open.length} jobs still open`);
    await sleep(25);
  }
}

const MEMBER_IDS = ['SBX-APPROVED', 'SBX-DENIED', 'SBX-MODIFIED', 'SBX-NOT-REQUIRED'];
const OUTCOMES: Record<string, string> = {
  'SBX-APPROVED': 'approved',
  'SBX-DENIED': 'denied',
  'SBX-MODIFIED': 'modified',
  'SBX-NOT-REQUIRED': 'not_required',
};

describe('several workers on one queue', () => {
  it(
    'process every case exactly once: one submission per case, every job run once',
    async () => {
      const first = await h.startWorker({
        portal: spy,
        pipelineSettings: { sandbox: { decisionPollIntervalMs: 0 } },
      });
      const second = await h.startWorker({
        portal: spy,
        pipelineSettings: { sandbox: { decisionPollIntervalMs: 0 } },
      });
      const cases = await Promise.all(
        // Three of each scenario: more cases than both workers' slots together, so each worker claims some.
        Array.from({ length: 12 }, (_, i) => h.readyCase(MEMBER_IDS[i % MEMBER_IDS.length]!)),
      );
      const memberIdOf = new Map(cases.map((c, i) => [c.id, MEMBER_IDS[i % MEMBER_IDS.length]!]));

      await Promise.all(cases.map((c) => h.confirm(c.id)));
      const done = await Promise.all(cases.map((c) => h.waitForStatus(c.id, 'completed', BATCH_TIMEOUT_MS)));

      for (const authorization of done) {
        expect(authorization.outcome).toBe(OUTCOMES[memberIdOf.get(authorization.id)!]);
        const submissions = spy.callsTo('submit', authorization.id);
        expect(submissions).toHaveLength(1);
        expect(authorization.submission.payerReceipt?.referenceNumber).toMatch(/^PSX-[0-9A-F]{10}$/);
        expect(await PayerWebsite.submissionCount(h.dataSource, submissions[0]!.idempotencyKey!)).toBe(1);
      }
      await allJobsSettled();
      const jobs = await pipelineJobs();
      expect(jobs).toHaveLength(24); // process + poll_decision per case
      expect(jobs.every((job) => job.attempts === 1 && job.state === 'completed')).toBe(true);

      const settled = [...first.settled, ...second.settled];
      const ids = settled.map((s) => s.job.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(settled.every((s) => s.settlement.status === 'completed')).toBe(true);
      expect(first.settled.length).toBeGreaterThan(0);
      expect(second.settled.length).toBeGreaterThan(0);
    },
    BATCH_TIMEOUT_MS,
  );
});

describe('cancel racing the pipeline', () => {
  it('a cancel while the payer is receiving the submission stands; the payer got it once', async () => {
    const ready = await h.readyCase('SBX-APPROVED');
    const gate = new Gate();
    spy.before = async (method, portalCase) => {
      if (method === 'submit' && portalCase.authorizationId === ready.id) await gate.wait();
    };
    const worker = await h.startWorker({ portal: spy });
    await h.confirm(ready.id);
    await gate.arrived();

    const canceled = await h.cancel(ready.id);
    expect(canceled.status).toBe('canceled');
    gate.open();
    await allJobsSettled();

    const stored = await h.get(ready.id);
    expect(stored.status).toBe('canceled');
    expect(stored.toState().canceledAt).not.toBeNull();
    expect(stored.finalBoundaryCrossedAt).not.toBeNull();
    expect(spy.callsTo('submit', ready.id)).toHaveLength(1);
    // The receipt arrived after the cancel: the step ends as superseded and the case stays canceled.
    const outcomes = worker.settled
      .filter((s) => s.job.authorizationId === ready.id)
      .map((s) => s.settlement);
    expect(outcomes).toEqual([{ status: 'completed', outcome: 'superseded' }]);
    expect(await h.jobs(ready.id)).toHaveLength(1);
    expect(
      await PayerWebsite.submissionCount(h.dataSource, spy.callsTo('submit', ready.id)[0]!.idempotencyKey!),
    ).toBe(1);
  });

  it('a cancel while the portal is discovering stops the case before the boundary: nothing is submitted', async () => {
    const ready = await h.readyCase('SBX-APPROVED');
    const gate = new Gate();
    spy.before = async (method, portalCase) => {
      if (method === 'discover' && portalCase.authorizationId === ready.id) await gate.wait();
    };
    await h.startWorker({ portal: spy });
    await h.confirm(ready.id);
    await gate.arrived();
    await h.cancel(ready.id);
    gate.open();
    await allJobsSettled();

    const stored = await h.get(ready.id);
    expect(stored.status).toBe('canceled');
    expect(stored.finalBoundaryCrossedAt).toBeNull();
    expect(spy.callsTo('submit', ready.id)).toEqual([]);
  });

  it(
    'cancels at random moments never make a second submission or undo a cancel',
    async () => {
      await h.startWorker({ portal: spy });
      await h.startWorker({ portal: spy });
      spy.before = () => sleep(Math.floor(Math.random() * 15));
      const cases = await Promise.all(Array.from({ length: 12 }, () => h.readyCase('SBX-APPROVED')));
      const canceledIds = new Set<string>();
      await Promise.all(
        cases.map(async (c, i) => {
          await h.confirm(c.id);
          if (i % 3 === 2) return; // some run to completion
          await sleep(Math.floor(Math.random() * 60));
          const current = await h.get(c.id);
          if (current.status === 'completed') return;
          await h.cancel(c.id).then(
            () => canceledIds.add(c.id),
            (error: { code?: string }) => {
              // Raced the worker's own write: still a valid outcome, as long as the invariants hold.
              if (error.code !== 'version_conflict' && error.code !== 'authorization_not_cancelable')
                throw error;
            },
          );
        }),
      );
      await allJobsSettled();

      for (const c of cases) {
        const stored = await h.get(c.id);
        const submissions = spy.callsTo('submit', c.id);
        expect(submissions.length).toBeLessThanOrEqual(1);
        if (canceledIds.has(c.id)) {
          expect(stored.status).toBe('canceled');
        } else if (stored.status !== 'canceled') {
          expect(stored.status).toBe('completed');
          expect(stored.outcome).toBe('approved');
          expect(submissions).toHaveLength(1);
        }
        const events = await h.eventTypes(c.id);
        expect(events.filter((e) => e === 'authorization.receipt_recorded').length).toBeLessThanOrEqual(1);
      }
    },
    BATCH_TIMEOUT_MS,
  );
});
