import { PayerPortalError } from '@prior-auth/domain';
import { DatabaseUnavailableError } from '@prior-auth/persistence-postgres';
import { describeJobError, isPermanentJobFailure, PermanentJobError } from '../src/retry-policy';

describe('isPermanentJobFailure', () => {
  it.each<[string, unknown, boolean]>([
    ['a malformed job', new PermanentJobError('invalid_job_payload', 'no handoff'), true],
    [
      'a payer’s permanent refusal',
      new PayerPortalError('payer_portal_unavailable', 'none', { transient: false }),
      true,
    ],
    ['a portal timeout', new PayerPortalError('payer_portal_timeout', 'slow', { transient: true }), false],
    ['a database outage', new DatabaseUnavailableError(new Error('Connection terminated')), false],
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      false,
    ],
    ['a bug', new TypeError('undefined is not a function'), false],
  ])('%s → permanent: %s', (_name, error, permanent) => {
    expect(isPermanentJobFailure(error)).toBe(permanent);
  });
});

describe('describeJobError', () => {
  it('keeps a code and a message, never more', () => {
    expect(describeJobError(new PermanentJobError('invalid_job_payload', 'no handoff'))).toBe(
      'invalid_job_payload: no handoff',
    );
    expect(describeJobError('a string')).toBe('non-error thrown: string');
  });
});
