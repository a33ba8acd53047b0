import { PayerPortalError } from '../ports/payer-portal.port';
import { createHarness, SCOPE, type Harness } from '../testing';
import { AbandonProcessingUseCase, PROCESSING_ABANDONED_CODE } from './abandon-processing.use-case';
import { CancelAuthorizationUseCase } from './cancel-authorization.use-case';
import { ProcessAuthorizationUseCase } from './process-authorization.use-case';

let h: Harness;
beforeEach(() => {
  h = createHarness();
});

const abandon = (authorizationId: string) =>
  new AbandonProcessingUseCase(h.deps).execute(SCOPE, { authorizationId, reason: 'retries_exhausted' });

describe('AbandonProcessingUseCase', () => {
  it('fails a processing case whose final boundary is not crossed', async () => {
    const authorization = await h.authorizationIn('processing');
    expect(await abandon(authorization.id)).toBe('failed');
    const failed = (await h.load(authorization.id)).toState();
    expect(failed).toMatchObject({
      status: 'completed',
      outcome: 'failed',
      failure: { code: PROCESSING_ABANDONED_CODE, details: { reason: 'retries_exhausted' } },
    });
    expect(h.payerPortal.callsTo('submit')).toHaveLength(0);
  });

  it('never fails a case past the boundary: a submission may exist', async () => {
    const authorization = await h.authorizationIn('processing');
    h.payerPortal.fail('submit', new PayerPortalError('portal_timeout', 'timed out', { transient: true }));
    await expect(
      new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: authorization.id }),
    ).rejects.toThrow('timed out');
    const crossed = await h.load(authorization.id);
    expect(crossed.finalBoundaryCrossedAt).not.toBeNull();

    expect(await abandon(authorization.id)).toBe('skipped');
    expect((await h.load(authorization.id)).toState()).toMatchObject({ status: 'processing', failure: null });
  });

  it('leaves a case that moved on alone', async () => {
    const authorization = await h.authorizationIn('processing');
    await new CancelAuthorizationUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
      expectedVersion: authorization.version,
    });
    expect(await abandon(authorization.id)).toBe('skipped');
    expect((await h.load(authorization.id)).status).toBe('canceled');
  });
});
