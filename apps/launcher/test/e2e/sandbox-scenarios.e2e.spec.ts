import {
  ApiClient,
  expectStatus,
  type Authorization,
  type ErrorBody,
  type ManualHandoff,
  type SandboxScenario,
} from './support/api-client';
import {
  CaseJourney,
  expectSandboxReceipt,
  POLICIES,
  submitThroughReview,
  windowDays,
  type FinalSubmissionPolicy,
} from './support/case-helpers';
import { PayerOperator } from './support/payer-operator';
import { StackHarness } from './support/stack-harness';
import { testTenant } from './support/test-tenant';

/*
 * Every scenario of the sandbox payer (decision 0026) end to end: the API, a worker and the simulated payer
 * website run as processes (the worker's browser drives the website), and the tests see only what an integrator
 * sees over HTTP (plus the worker's log where a scenario is about what does not happen). The cases run
 * concurrently on the one stack. Each scenario runs under one final-submission policy, the two taking turns, and
 * portal_question, whose review differs by policy, under both: every scenario under both policies is run by
 * apps/worker/test/pipeline-scenarios.int.spec.ts, and each case here drives a browser on a two-core machine.
 */

const tenant = testTenant();
const stack = new StackHarness();
let api: ApiClient;
let scenarios: SandboxScenario[] = [];
let operator: PayerOperator;

beforeAll(async () => {
  await stack.start({ workers: 1 });
  api = new ApiClient(stack.baseUrl, tenant.sandboxApiKey);
  scenarios = await api.sandboxScenarios();
  operator = await PayerOperator.start(stack.payerSiteUrl);
}, 90_000);

afterAll(async () => {
  await operator?.close();
  await stack.stop();
}, 30_000);

const scenario = (name: string): SandboxScenario => {
  const found = scenarios.find((s) => s.scenario === name);
  if (found === undefined) throw new Error(`GET /v1/sandbox/scenarios does not list ${name}`);
  return found;
};

const openCase = (name: string, policy: FinalSubmissionPolicy) =>
  CaseJourney.open(api, stack, {
    providerNpi: tenant.providerNpi,
    memberId: scenario(name).memberId,
    policy,
  });

const expectReviewAfterSubmission = (done: Authorization, policy: FinalSubmissionPolicy) => {
  if (policy === 'automatic') expect(done.submission.reviewSnapshot).toBeNull();
  else expect(done.submission.reviewSnapshot?.status).toBe('approved');
};

/** Each row under one policy, the policies taking turns. */
const policiesInTurn = <T extends unknown[]>(rows: T[]): Array<[FinalSubmissionPolicy, ...T]> =>
  rows.map((row, index) => [POLICIES[index % POLICIES.length]!, ...row] as [FinalSubmissionPolicy, ...T]);
const only = (policy: FinalSubmissionPolicy): FinalSubmissionPolicy[] => [policy];

it('the sandbox lists its scenarios, each with its own member ID', () => {
  // A scenario added to the sandbox without a test here fails this list.
  expect(scenarios.map((s) => s.scenario)).toEqual([
    'approved',
    'denied',
    'modified',
    'not_required',
    'failed',
    'pending',
    'more_info',
    'portal_question',
    'manual_handoff',
  ]);
  expect(new Set(scenarios.map((s) => s.memberId)).size).toBe(scenarios.length);
});

it.concurrent.each(policiesInTurn([['approved'], ['denied'], ['modified'], ['not_required']]))(
  '%s, %s: the payer receives the submission, then decides',
  async (policy, name) => {
    const journey = await openCase(name, policy);
    await submitThroughReview(journey, policy);

    const done = await journey.waitForStatus('completed');
    expect(done).toMatchObject({ outcome: name, nextAction: null, completedAt: expect.any(String) });
    expectSandboxReceipt(done.submission.payerReceipt);
    expectReviewAfterSubmission(done, policy);
    const decision = done.submission.decision!;
    expect(decision).toMatchObject({ receivedAt: expect.any(String), payerStatusText: expect.any(String) });
    switch (name) {
      case 'approved':
        expect(decision.authorizationNumber).toMatch(/^PSA-[0-9A-F]{10}$/);
        expect(windowDays(decision.effectiveFrom, decision.effectiveTo)).toBe(180);
        expect(decision).toMatchObject({ modifications: [], denialReasons: [] });
        break;
      case 'modified':
        expect(decision.authorizationNumber).toMatch(/^PSA-[0-9A-F]{10}$/);
        expect(windowDays(decision.effectiveFrom, decision.effectiveTo)).toBe(90);
        expect(decision.modifications).toHaveLength(1);
        expect(decision.denialReasons).toEqual([]);
        break;
      case 'denied':
        expect(decision.authorizationNumber).toBeNull();
        expect(decision.denialReasons.length).toBeGreaterThan(0);
        break;
      case 'not_required':
        expect(decision).toMatchObject({
          authorizationNumber: null,
          effectiveFrom: null,
          effectiveTo: null,
          modifications: [],
          denialReasons: [],
        });
        break;
    }
  },
);

it.concurrent.each(only('automatic'))(
  '%s, failed: the payer rejects the submission and the case completes as failed, once',
  async (policy) => {
    const journey = await openCase('failed', policy);
    await submitThroughReview(journey, policy);

    const done = await journey.waitForStatus('completed');
    expect(done).toMatchObject({
      outcome: 'failed',
      nextAction: null,
      completedAt: expect.any(String),
      submission: { payerReceipt: null, decision: null },
    });
    expectReviewAfterSubmission(done, policy);
    // A permanent refusal is not retried: the one processing run failed the case. Its log line follows the
    // commit the API already shows.
    await stack.waitForWorkerRecords(
      (r) => r.authorizationId === journey.id && r.type === 'process' && r.outcome === 'failed',
      1,
      'the failing run',
    );
    const runs = stack
      .workerRecords()
      .filter((r) => r.authorizationId === journey.id && r.type === 'process');
    expect(runs.map((r) => [r.msg, r.outcome])).toContainEqual(['job completed', 'failed']);
    expect(runs.filter((r) => r.msg !== 'job completed')).toEqual([]);
  },
);

it.concurrent.each(only('requires_confirmation'))(
  '%s, pending: the receipt is recorded and the payer never decides',
  async (policy) => {
    const journey = await openCase('pending', policy);
    await submitThroughReview(journey, policy);

    const waiting = await journey.waitFor(
      (a) => a.status === 'waiting_on_payer' && a.submission.payerReceipt !== null,
      'waiting_on_payer with a receipt',
    );
    expectSandboxReceipt(waiting.submission.payerReceipt);
    expect(waiting).toMatchObject({
      nextAction: null,
      outcome: null,
      completedAt: null,
      submission: { decision: null },
    });
    // The worker asks the payer again and again; every answer is "not yet".
    await stack.waitForWorkerRecords(
      (r) =>
        r.authorizationId === journey.id && r.type === 'poll_decision' && r.outcome === 'decision_pending',
      2,
      `pending decision polls of ${journey.id}`,
    );
    const still = await journey.refresh();
    expect(still).toMatchObject({ status: 'waiting_on_payer', version: waiting.version, outcome: null });
    expect(still.submission).toEqual(waiting.submission);

    // Giving up on the payer keeps the receipt: cancelling never reverses what the payer has.
    const canceled = await journey.cancel();
    expect(canceled).toMatchObject({ status: 'canceled', canceledAt: expect.any(String), nextAction: null });
    expect(canceled.submission.payerReceipt).toEqual(waiting.submission.payerReceipt);
  },
);

it.concurrent.each(only('automatic'))(
  '%s, more_info: the payer asks for a document after receipt; once attached and confirmed, it approves',
  async (policy) => {
    const journey = await openCase('more_info', policy);
    await submitThroughReview(journey, policy);

    const asked = await journey.waitForStatus('requires_input');
    expect(asked.nextAction).toMatchObject({ type: 'provide_requirements', owner: 'customer' });
    expect(asked.requirements.questions).toEqual([]);
    expect(asked.requirements.documents).toEqual([{ type: expect.any(String), message: expect.any(String) }]);
    const requested = asked.requirements.documents[0]!.type;
    expect(scenario('more_info').description).toContain(requested);
    const firstReceipt = expectSandboxReceipt(asked.submission.payerReceipt);
    expect(asked).toMatchObject({
      outcome: null,
      completedAt: null,
      submission: { reviewSnapshot: null, decision: null },
    });

    const provided = await journey.attachPdf([requested]);
    expect(provided).toMatchObject({
      status: 'requires_confirmation',
      requirements: { documents: [] },
      nextAction: { type: 'advance_case' },
    });
    await submitThroughReview(journey, policy);

    const done = await journey.waitForStatus('completed');
    expect(done.outcome).toBe('approved');
    expect(done.submission.decision?.authorizationNumber).toMatch(/^PSA-/);
    expectReviewAfterSubmission(done, policy);
    // A new submission, so a new receipt; the first one was the payer's answer to the first round.
    const secondReceipt = expectSandboxReceipt(done.submission.payerReceipt);
    expect(secondReceipt.referenceNumber).not.toBe(firstReceipt.referenceNumber);
    expect(Date.parse(secondReceipt.receivedAt)).toBeGreaterThan(Date.parse(firstReceipt.receivedAt));
  },
);

it.concurrent.each(POLICIES)(
  '%s, portal_question: processing discovers a question; once answered and confirmed, the payer approves',
  async (policy) => {
    const journey = await openCase('portal_question', policy);
    // Discovery comes before any final review: the first confirmation ends back with the customer.
    await journey.confirm('advance_case');

    const asked = await journey.waitForStatus('requires_input');
    expect(asked.nextAction).toMatchObject({ type: 'provide_requirements', owner: 'customer' });
    expect(asked.requirements.documents).toEqual([]);
    expect(asked.requirements.questions).toEqual([
      { linkId: expect.any(String), message: expect.any(String) },
    ]);
    const linkId = asked.requirements.questions[0]!.linkId;
    expect(scenario('portal_question').description).toContain(linkId);
    const question = asked.questionnaire.flatMap((g) => g.items).find((item) => item.linkId === linkId);
    expect(question).toMatchObject({ answerType: 'date', required: true });
    expect(asked.submission).toEqual({
      reviewSnapshot: null,
      payerReceipt: null,
      decision: null,
      decisionDueAt: null,
    });

    const answer = { linkId, answer: [{ valueDate: '2026-04-01' }] };
    const answered = await journey.patch([answer]);
    expect(answered).toMatchObject({
      status: 'requires_confirmation',
      requirements: { questions: [] },
      nextAction: { type: 'advance_case' },
    });
    await submitThroughReview(journey, policy);

    const done = await journey.waitForStatus('completed');
    expect(done.outcome).toBe('approved');
    expect(done.submission.decision?.authorizationNumber).toMatch(/^PSA-/);
    expectSandboxReceipt(done.submission.payerReceipt);
    expectReviewAfterSubmission(done, policy);
    if (policy === 'requires_confirmation') {
      expect(done.submission.reviewSnapshot?.questionnaireResponse.item).toContainEqual(answer);
    }
  },
);

it.concurrent.each(only('requires_confirmation'))(
  '%s, manual_handoff: an operator submits at the payer through a grant; the payer confirms and decides',
  async (policy) => {
    const journey = await openCase('manual_handoff', policy);
    await submitThroughReview(journey, policy);

    const needsHuman = await journey.waitForStatus('requires_action');
    expect(needsHuman.nextAction).toMatchObject({
      type: 'complete_payer_interaction',
      owner: 'operator',
      resolution: { kind: 'manual_handoff', reason: 'portal_requires_human' },
    });
    expect(needsHuman).toMatchObject({
      outcome: null,
      completedAt: null,
      submission: { payerReceipt: null, decision: null },
    });
    expectReviewAfterSubmission(needsHuman, policy);

    // The operator: a handoff, an access grant to its session (the interactive view of the page the worker kept
    // at the human check, decision 0038), then the submission by hand at the simulated payer website (decision
    // 0022), whose confirmation shows the reference to report.
    const handoff = expectStatus(
      await api.createHandoff(journey.id, needsHuman.version),
      201,
      'create a manual handoff',
    ).body as ManualHandoff;
    expect(handoff).toMatchObject({ state: 'active', authorization: { status: 'requires_action' } });
    const grant = expectStatus(
      await api.createHandoffGrant(journey.id, handoff.manualHandoffId),
      201,
      'create an access grant',
    ).body as { url: string };
    const opened = await fetch(grant.url, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    const sessionPage = opened.headers.get('location')!;
    expect(await (await fetch(sessionPage)).text()).toContain(journey.id);
    const reference = await operator.submit(needsHuman);
    expect(reference).toMatch(/^PSX-[0-9A-F]{10}$/);

    const claimed = expectStatus(
      await api.completeHandoff(journey.id, handoff.manualHandoffId, handoff.version, {
        reportedOutcome: 'submitted',
        observedReferenceNumber: reference,
      }),
      200,
      'complete the handoff',
    ).body as ManualHandoff;
    expect(claimed).toMatchObject({
      state: 'closing',
      reconciliation: { state: 'pending' },
      authorization: { status: 'processing' },
    });

    // The worker finds the submission at the payer before the case shows a receipt; then the payer decides.
    const done = await journey.waitForStatus('completed');
    expect(done.outcome).toBe('approved');
    expect(done.submission.payerReceipt).toMatchObject({ referenceNumber: reference });
    const closed = expectStatus(
      await api.getHandoff(journey.id, handoff.manualHandoffId),
      200,
      'read the handoff',
    ).body;
    expect(closed).toMatchObject({
      state: 'closed',
      result: 'completed_reported',
      reconciliation: { state: 'confirmed' },
    });
  },
);

it.concurrent(
  'review_stale: answers changed after the review refuse its approval; a new review is approved',
  async () => {
    const journey = await openCase('approved', 'requires_confirmation');
    await journey.confirm('advance_case');
    const review = await journey.waitForAction('approve_submission');
    const staleAction = review.nextAction!;
    const staleSnapshotId = review.submission.reviewSnapshot!.id;

    const renamed = { linkId: 'patient.firstName', answer: [{ valueString: 'Augusta' }] };
    const edited = await journey.patch([renamed]);
    expect(edited).toMatchObject({
      status: 'requires_confirmation',
      nextAction: { type: 'advance_case' },
      submission: { reviewSnapshot: { id: staleSnapshotId, status: 'stale' }, payerReceipt: null },
    });

    // Approving the old review at the current version: refused as stale, and nothing changes.
    const refused = await api.confirm(journey.id, edited.version, staleAction.id);
    expect(refused.status).toBe(409);
    expect((refused.body as ErrorBody).error).toMatchObject({
      code: 'review_stale',
      details: { reviewSnapshotId: staleSnapshotId },
    });
    const unchanged = await journey.refresh();
    expect(unchanged).toMatchObject({ version: edited.version, status: 'requires_confirmation' });

    await journey.confirm('advance_case');
    const fresh = await journey.waitForAction('approve_submission');
    expect(fresh.nextAction!.id).not.toBe(staleAction.id);
    expect(fresh.submission.reviewSnapshot).toMatchObject({ status: 'current' });
    expect(fresh.submission.reviewSnapshot!.id).not.toBe(staleSnapshotId);
    expect(fresh.submission.reviewSnapshot!.questionnaireResponse.item).toContainEqual(renamed);
    await journey.confirm('approve_submission');

    const done = await journey.waitForStatus('completed');
    expect(done.outcome).toBe('approved');
    expectSandboxReceipt(done.submission.payerReceipt);
    expect(done.submission.reviewSnapshot).toMatchObject({
      id: fresh.submission.reviewSnapshot!.id,
      status: 'approved',
    });
  },
);
