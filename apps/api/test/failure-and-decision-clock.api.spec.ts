import {
  FAILURE_CODES,
  isRetryableFailureCode,
  PayerPortalError,
  ResolveGivenUpJobUseCase,
  WORKER_JOB_TYPES,
  type Clock,
  type PayerPortal,
  type PortalCase,
} from '@prior-auth/domain';
import { KeysetCursors, TypeOrmUnitOfWork } from '@prior-auth/persistence-postgres';
import { RandomIdGenerator, TokenSigner } from '@prior-auth/platform';
import { client, CPAP_SELECTION, readyToConfirm, sandboxScope, type Client } from './authorization-helpers';
import { pipeline, websitePortal } from './pipeline-helpers';
import { connectPayerPortal, storePortalCredentials } from './portal-access-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * Decision 21 (docs/decisions/0031-events-and-webhooks.md): a failed case says why (`failure`), a case the
 * payer received says when its decision is due (`submission.decisionDueAt`), and `?overdue=true` lists the
 * cases still waiting past it. The worker's steps run in this process (see pipeline-helpers).
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** The sandbox payer website, except that one step fails with a permanent portal error (as a browser run reports). */
class RefusingPortal implements PayerPortal {
  private readonly payer: PayerPortal = websitePortal;
  constructor(
    private readonly step: 'discover' | 'submit',
    private readonly code: string,
  ) {}

  discover = (portalCase: PortalCase) =>
    this.step === 'discover' ? this.refuse() : this.payer.discover(portalCase);
  validate = (portalCase: PortalCase) => this.payer.validate(portalCase);
  prepareSubmission = (portalCase: PortalCase) => this.payer.prepareSubmission(portalCase);
  submit: PayerPortal['submit'] = (portalCase, options) =>
    this.step === 'submit' ? this.refuse() : this.payer.submit(portalCase, options);
  findSubmission: PayerPortal['findSubmission'] = (portalCase, lookup) =>
    this.payer.findSubmission(portalCase, lookup);
  pollDecision = (portalCase: PortalCase) => this.payer.pollDecision(portalCase);

  private refuse(): Promise<never> {
    return Promise.reject(new PayerPortalError(this.code, `Refused: ${this.code}.`, { transient: false }));
  }
}

let t: TestApp;
let tenant: TestTenant;
let c: Client;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await t.createTenant();
  c = client(t.app, tenant.keys.sandbox);
});
afterAll(() => t.close());

/** A confirmed sandbox case (in `processing`), as the API returns it. */
async function confirmedCase(memberId?: string, who: Client = c) {
  const { authorization } = await readyToConfirm(who, tenant, 'automatic', memberId);
  const confirmed = await who
    .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
    .expect(200);
  expect(confirmed.body.status).toBe('processing');
  expect(confirmed.body.failure).toBeNull();
  return confirmed.body as { id: string };
}

describe('failure', () => {
  it('says the payer rejected the submission (sandbox scenario SBX-FAILED), not retryable', async () => {
    const { id } = await confirmedCase('SBX-FAILED');
    await pipeline(t).process(sandboxScope(tenant), id);
    const res = await c.get(id).expect(200);
    expect(res.body).toMatchObject({
      status: 'completed',
      outcome: 'failed',
      failure: { code: 'payer_rejected_submission', message: expect.any(String), retryable: false },
    });
    expect(Object.keys(res.body.failure as object).sort()).toEqual(['code', 'message', 'retryable']);

    // The legacy shape keeps its fields (decision 0019).
    const legacy = await c.get(id).set('Prior-Auth-Version', '2024-01-01').expect(200);
    expect(legacy.body.outcome).toBe('failed');
    expect(legacy.body).not.toHaveProperty('failure');
  });

  it('says no payer portal answers a production case, retryable', async () => {
    // Serviceable when created (decision 0021); no production portal is bound in this pipeline.
    await connectPayerPortal(t.dataSource, CPAP_SELECTION.payerId);
    await storePortalCredentials(t.dataSource, tenant.organizationId, CPAP_SELECTION.payerId);
    const production = client(t.app, tenant.keys.production);
    const { id } = await confirmedCase(undefined, production);
    await pipeline(t).process({ organizationId: tenant.organizationId, environment: 'production' }, id);
    const res = await production.get(id).expect(200);
    expect(res.body.failure).toEqual({
      code: 'payer_portal_unavailable',
      message: expect.any(String),
      retryable: true,
    });
  });

  it('says processing was given up after repeated failures, retryable', async () => {
    const { id } = await confirmedCase();
    const unitOfWork = new TypeOrmUnitOfWork(t.dataSource, {
      cursors: new KeysetCursors(new TokenSigner('test-signing-secret-test-signing-secret')),
      jobBoss: t.jobBoss,
    });
    const resolve = new ResolveGivenUpJobUseCase({
      unitOfWork,
      clock: { now: () => new Date() },
      ids: new RandomIdGenerator(),
    });
    const outcome = await resolve.execute(sandboxScope(tenant), {
      jobType: WORKER_JOB_TYPES.process,
      authorizationId: id,
      payload: {},
      reason: 'attempts_exhausted',
    });
    expect(outcome).toBe('case_failed');
    const res = await c.get(id).expect(200);
    expect(res.body.failure).toEqual({
      code: 'processing_retries_exhausted',
      message: expect.any(String),
      retryable: true,
    });
  });

  // Every documented code a portal adapter fails a case with (the worker's own code is tested above; a
  // locked account goes to a person, below), at the step where it arises.
  const portalFailures = FAILURE_CODES.filter(
    (code) => !['processing_retries_exhausted', 'portal_account_locked'].includes(code),
  ).map((code) => {
    const step = ['portal_upload_refused', 'payer_rejected_submission', 'portal_reference_missing'].includes(
      code,
    )
      ? ('submit' as const)
      : ('discover' as const);
    return [step, code, isRetryableFailureCode(code)] as const;
  });

  it.each(portalFailures)('says why the payer portal refused at %s: %s', async (step, code, retryable) => {
    const { id } = await confirmedCase();
    await pipeline(t, undefined, new RefusingPortal(step, code)).process(sandboxScope(tenant), id);
    const res = await c.get(id).expect(200);
    expect(res.body).toMatchObject({ outcome: 'failed', failure: { code, retryable } });
  });
});

it('hands a locked portal account to a person instead of failing (decision 0021)', async () => {
  const { id } = await confirmedCase();
  await pipeline(t, undefined, new RefusingPortal('discover', 'portal_account_locked')).process(
    sandboxScope(tenant),
    id,
  );
  const res = await c.get(id).expect(200);
  expect(res.body).toMatchObject({ failure: null, nextAction: { type: 'complete_payer_interaction' } });
});

describe('the decision clock', () => {
  it('shows decisionDueAt 7 calendar days after the receipt, and lists the case as overdue once past it', async () => {
    // Received 8 days ago: due a day ago.
    const past: Clock = { now: () => new Date(Date.now() - 8 * DAY_MS) };
    const { id: late } = await confirmedCase('SBX-PENDING');
    await pipeline(t, past).process(sandboxScope(tenant), late);
    const lateCase = await c.get(late).expect(200);
    expect(lateCase.body.status).toBe('waiting_on_payer');
    const receivedAt = Date.parse(lateCase.body.submission.payerReceipt.receivedAt as string);
    expect(Date.parse(lateCase.body.submission.decisionDueAt as string)).toBe(receivedAt + 7 * DAY_MS);

    const { id: onTime } = await confirmedCase('SBX-PENDING');
    await pipeline(t).process(sandboxScope(tenant), onTime);
    const onTimeCase = await c.get(onTime).expect(200);
    expect(onTimeCase.body.status).toBe('waiting_on_payer');
    expect(Date.parse(onTimeCase.body.submission.decisionDueAt as string)).toBeGreaterThan(Date.now());

    const overdue = await c.list('?overdue=true').expect(200);
    const overdueIds = (overdue.body.data as Array<{ id: string }>).map((a) => a.id);
    expect(overdueIds).toContain(late);
    expect(overdueIds).not.toContain(onTime);

    const all = await c.list('?overdue=false&status=waiting_on_payer').expect(200);
    expect((all.body.data as Array<{ id: string }>).map((a) => a.id)).toEqual(
      expect.arrayContaining([late, onTime]),
    );
  });

  it('pages overdue cases with a cursor bound to the filter', async () => {
    const past: Clock = { now: () => new Date(Date.now() - 8 * DAY_MS) };
    for (let i = 0; i < 2; i += 1) {
      const { id } = await confirmedCase('SBX-PENDING');
      await pipeline(t, past).process(sandboxScope(tenant), id);
    }
    const first = await c.list('?overdue=true&limit=1').expect(200);
    expect(first.body.data).toHaveLength(1);
    const cursor = first.body.pagination.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await c.list(`?overdue=true&limit=1&cursor=${encodeURIComponent(cursor)}`).expect(200);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    // The same cursor on the unfiltered list belongs to another query.
    await c.list(`?limit=1&cursor=${encodeURIComponent(cursor)}`).expect(422);
  });

  it('is null before a receipt, and refuses a bad overdue value', async () => {
    const { id } = await confirmedCase();
    expect((await c.get(id).expect(200)).body.submission.decisionDueAt).toBeNull();
    const res = await c.list('?overdue=yes').expect(422);
    expect(res.body.error.code).toBe('request_validation_failed');
  });
});
