import { isPayerPortalError } from '@prior-auth/domain';

export interface RetryPolicy {
  /** Delay before the second attempt; doubled for every further attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Spreads retries of jobs that failed together (an outage) over [delay / 2, delay]. */
  jitter: boolean;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 1_000, maxDelayMs: 5 * 60_000, jitter: true };

/** Exponential backoff: `attempt` is the attempt that just failed (1 for the first). */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  return policy.jitter ? Math.round(delay / 2 + (delay / 2) * random()) : delay;
}

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
 * turn the ones that should fail a case into a failed case themselves). Everything else (transient portal
 * errors, an unavailable database, bugs) is retried with backoff until the job's attempts run out.
 */
export function isPermanentJobFailure(error: unknown): boolean {
  if (error instanceof PermanentJobError) return true;
  return isPayerPortalError(error) && !error.transient;
}

/** What is stored in `jobs.last_error` and logged: a code and a message, never case data. */
export function describeJobError(error: unknown): string {
  if (error instanceof PermanentJobError || isPayerPortalError(error))
    return `${error.code}: ${error.message}`;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message}`;
  }
  return `non-error thrown: ${typeof error}`;
}
