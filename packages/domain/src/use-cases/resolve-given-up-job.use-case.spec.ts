import { PayerPortalError } from '../ports/payer-portal.port';
import { createHarness, SCOPE, type Harness } from '../testing';
import { CancelAuthorizationUseCase } from './cancel-authorization.use-case';
import { ProcessAuthorizationUseCase } from './process-authorization.use-case';
import {
  type GiveUpReason,
  PROCESSING_ABANDONED_CODE,
  ResolveGivenUpJobUseCase,
} from './resolve-given-up-job.use-case';

let h: Harness;
beforeEach(() => {
  h = createHarness();
});

const resolve = (
  jobType: string,
  authorizationId: string,
  reason: GiveUpReason = 'attempts_exhausted',
  payload: Record<string, unknown> = {},
) => new ResolveGivenUpJobUseCase(h.deps).execute(SCOPE, { jobType, authorizationId, payload, reason });

/** A processing case whose final boundary is crossed: the submit call failed transiently. */
async function pastTheBoundary() {
  const authorization = await h.authorizationIn('processing');
  h.payerPortal.fail('submit', new PayerPortalError('portal_timeout', 'timed out', { transient: true }));
  await expect(
    new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: authorization.id }),
  ).rejects.toThrow('timed out');
  expect((await h.load(authorization.id)).finalBoundaryCrossedAt).not.toBeNull();
  return authorization;
}

describe('ResolveGivenUpJobUseCase', () => {
  it.each<[GiveUpReason]>([['attempts_exhausted'], ['permanent_failure']])(
    'process before the final boundary (%s): the case fails, nothing reached the payer',
    async (reason) => {
      const authorization = await h.authorizationIn('processing');
      expect(await resolve('process', authorization.id, reason)).toBe('case_failed');
      expect((await h.load(authorization.id)).toState()).toMatchObject({
        status: 'completed',
        outcome: 'failed',
        failure: { code: PROCESSING_ABANDONED_CODE, details: { reason } },
      });
      expect(h.payerPortal.callsTo('submit')).toHaveLength(0);
    },
  );

  it.each<[string, GiveUpReason, string, string[]]>([
    ['process', 'attempts_exhausted', 'reconcile_scheduled', ['reconcile']],
    ['process', 'permanent_failure', 'none', []],
    ['reconcile', 'attempts_exhausted', 'reconcile_scheduled', ['reconcile']],
    ['reconcile', 'permanent_failure', 'none', []],
    ['poll_decision', 'attempts_exhausted', 'none', []],
    ['some_unknown_type', 'attempts_exhausted', 'none', []],
  ])(
    'past the final boundary, a given-up %s (%s) → %s: the case is never failed there',
    async (jobType, reason, outcome, scheduled) => {
      const authorization = await pastTheBoundary();
      const before = h.jobs().length;
      expect(await resolve(jobType, authorization.id, reason)).toBe(outcome);
      expect((await h.load(authorization.id)).toState()).toMatchObject({
        status: 'processing',
        failure: null,
      });
      const jobs = h.jobs().slice(before);
      expect(jobs.map((j) => j.type)).toEqual(scheduled);
      for (const job of jobs) {
        expect(job.runAt!.getTime()).toBe(h.clock.now().getTime() + h.deps.settings.givenUpRetryMs);
      }
    },
  );

  it.each<[string, GiveUpReason, string]>([
    ['poll_decision', 'attempts_exhausted', 'poll_decision_scheduled'],
    ['poll_decision', 'permanent_failure', 'none'],
    ['process', 'attempts_exhausted', 'none'],
  ])('a case waiting on the payer: given-up %s (%s) → %s', async (jobType, reason, outcome) => {
    const authorization = await h.authorizationIn('waiting_on_payer');
    expect(await resolve(jobType, authorization.id, reason)).toBe(outcome);
    expect((await h.load(authorization.id)).status).toBe('waiting_on_payer');
  });

  it('leaves a case that moved on alone', async () => {
    const authorization = await h.authorizationIn('processing');
    await new CancelAuthorizationUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
      expectedVersion: authorization.version,
    });
    expect(await resolve('process', authorization.id)).toBe('none');
    expect((await h.load(authorization.id)).status).toBe('canceled');
  });

  it('a handoff job without a handoff id resolves nothing', async () => {
    const authorization = await h.authorizationIn('processing');
    expect(await resolve('reconcile_handoff', authorization.id)).toBe('none');
    expect(await resolve('expire_manual_handoff', authorization.id)).toBe('none');
  });
});
