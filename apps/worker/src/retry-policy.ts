import { isPayerPortalError } from '@prior-auth/domain';
import { isDatabaseUnavailable } from '@prior-auth/persistence-postgres';

/**
 * A job that can never succeed as it is (unknown type, malformed payload, no payer portal for the
 * environment): given up at once instead of being retried.
 */
export class PermanentJobError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

/**
 * Permanent: our own PermanentJobError and a payer's permanent refusal that reached the worker (the use cases
 * turn the ones that should fail a case into a failed case themselves). Everything else is transient and
 * retried with the type's backoff until its attempts run out: portal timeouts, bugs, and a database that is
 * unreachable or dropped the connection (isDatabaseUnavailable, decision 0016).
 */
export function isPermanentJobFailure(error: unknown): boolean {
  // Checked first: an outage can surface wrapped in anything, and nothing was committed by the failed step.
  if (isDatabaseUnavailable(error)) return false;
  if (error instanceof PermanentJobError) return true;
  return isPayerPortalError(error) && !error.transient;
}

/** What is stored in a failed job's output and logged: a code and a message, never case data. */
export function describeJobError(error: unknown): string {
  if (error instanceof PermanentJobError || isPayerPortalError(error))
    return `${error.code}: ${error.message}`;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message}`;
  }
  return `non-error thrown: ${typeof error}`;
}
