import { ApiClient } from './support/api-client';
import { CaseJourney, expectSandboxReceipt, POLICIES, submitThroughReview } from './support/case-helpers';
import { StackHarness } from './support/stack-harness';
import { testTenant } from './support/test-tenant';

/*
 * Two worker processes on the one job queue (decision 0013: workers share nothing but PostgreSQL). A batch of
 * cases confirmed at once is shared out between them, and each case still reaches the payer exactly once.
 */

const tenant = testTenant();
const stack = new StackHarness();
let api: ApiClient;

beforeAll(async () => {
  await stack.start({ workers: 2, workerEnv: { WORKER_CONCURRENCY: '2' } });
  api = new ApiClient(stack.baseUrl, tenant.sandboxApiKey);
}, 90_000);

afterAll(() => stack.stop(), 30_000);

const DECIDED = ['approved', 'denied', 'modified', 'not_required'];
// More cases than the two workers' four slots together, so both must take part. A case waits for a slot behind
// the cases ahead of it, so its waits get longer limits than a lone case's: on two cores shared with another
// package's tests, twelve cases took longer than a lone case may wait.
const BATCH_SIZE = 8;
const QUEUED_CASE_TIMEOUT_MS = 300_000;

it('every case of a batch is submitted once, gets one receipt and one decision', async () => {
  const memberIds = new Map((await api.sandboxScenarios()).map((s) => [s.scenario, s.memberId]));
  const batch = Array.from({ length: BATCH_SIZE }, (_, index) => ({
    scenario: DECIDED[index % DECIDED.length]!,
    // Every scenario under both policies.
    policy: POLICIES[Math.floor(index / DECIDED.length) % POLICIES.length]!,
  }));
  const journeys = await Promise.all(
    batch.map(({ scenario, policy }) =>
      CaseJourney.open(api, stack, {
        providerNpi: tenant.providerNpi,
        memberId: memberIds.get(scenario)!,
        policy,
      }),
    ),
  );

  await Promise.all(
    journeys.map((journey, i) => submitThroughReview(journey, batch[i]!.policy, QUEUED_CASE_TIMEOUT_MS)),
  );
  const done = await Promise.all(
    journeys.map((journey) => journey.waitForStatus('completed', QUEUED_CASE_TIMEOUT_MS)),
  );

  done.forEach((authorization, i) => expect(authorization.outcome).toBe(batch[i]!.scenario));
  const references = done.map((a) => expectSandboxReceipt(a.submission.payerReceipt).referenceNumber);
  expect(new Set(references).size).toBe(BATCH_SIZE);

  // The workers' own account: every job ran to completion once, and each case was submitted once.
  const ids = new Set(journeys.map((j) => j.id));
  // Each decision's log line follows the commit the API already shows.
  await stack.waitForWorkerRecords(
    (r) => ids.has(String(r.authorizationId)) && r.outcome === 'decision_recorded',
    BATCH_SIZE,
    'decisions',
  );
  const records = stack.workerRecords().filter((r) => ids.has(String(r.authorizationId)));
  const completed = records.filter((r) => r.msg === 'job completed');
  expect(records.filter((r) => r.msg !== 'job completed')).toEqual([]);
  expect(new Set(completed.map((r) => r.jobId)).size).toBe(completed.length);
  for (const id of ids) {
    const outcomes = completed.filter((r) => r.authorizationId === id).map((r) => r.outcome);
    expect({ id, receipts: outcomes.filter((o) => o === 'receipt_recorded').length }).toEqual({
      id,
      receipts: 1,
    });
    expect({ id, decisions: outcomes.filter((o) => o === 'decision_recorded').length }).toEqual({
      id,
      decisions: 1,
    });
  }
  // Both workers took part: the queue was really shared.
  expect(new Set(completed.map((r) => r.worker))).toEqual(new Set(['worker-1', 'worker-2']));
}, 600_000);
