import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';

/**
 * The database could not be reached or dropped the connection (server restart, failover, network, pool
 * exhausted while connecting). Nothing was committed by the failed call, so the request may be retried:
 * the API answers 503/500 with `retryable: true`, the worker retries the job.
 */
export class DatabaseUnavailableError extends Error {
  readonly code = 'database_unavailable';
  readonly retryable = true;

  constructor(cause: unknown) {
    super('The database is unavailable.', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

export const isDatabaseUnavailableError = (error: unknown): error is DatabaseUnavailableError =>
  error instanceof DatabaseUnavailableError;

// SQLSTATEs that mean "the server went away or will not take us now", not "your statement is wrong".
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown (terminated by administrator, e.g. a restart)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, in recovery)
  '53300', // too_many_connections
]);
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EAI_AGAIN',
]);
// node-postgres reports these without a code.
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /Cannot use a pool after calling end/i,
];

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** Whether `error` (or the driver error inside a TypeORM QueryFailedError) is a lost or refused connection. */
export function isConnectionError(error: unknown): boolean {
  // TypeORM releases a query runner whose connection raised an error; the next use of that transaction
  // (an ambient one, typically) then reports the release instead of the lost connection.
  if (
    error instanceof QueryRunnerAlreadyReleasedError ||
    error instanceof QueryRunnerProviderAlreadyReleasedError
  ) {
    return true;
  }
  const inner = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  for (const candidate of [inner, error]) {
    const code = codeOf(candidate);
    if (
      code !== undefined &&
      (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_NODE_CODES.has(code))
    ) {
      return true;
    }
    const message = candidate instanceof Error ? candidate.message : undefined;
    if (message !== undefined && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/** Connection failures become DatabaseUnavailableError; every other error is returned unchanged. */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError) return error;
  return isConnectionError(error) ? new DatabaseUnavailableError(error) : error;
}
