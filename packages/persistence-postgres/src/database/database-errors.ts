import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';

/**
 * The database could not be reached or dropped the connection (server restart, failover, network, pool
 * exhausted while connecting). Nothing was committed by the failed call, so the request may be retried:
 * the API answers 503 with `retryable: true`, the worker retries the job.
 */
export class DatabaseUnavailableError extends Error {
  readonly code = 'database_unavailable';
  readonly retryable = true;

  constructor(cause: unknown) {
    super('The database is unavailable.', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

// SQLSTATEs that mean "the server went away or will not take us now", not "your statement is wrong". Class 08
// (connection exception) is matched as a whole below.
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown (terminated by administrator, e.g. a restart)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, in recovery)
  '57P05', // idle_session_timeout (the server closed the session)
  '53300', // too_many_connections
  '53400', // configuration_limit_exceeded (e.g. per-role connection limit)
  '25006', // read_only_sql_transaction (a standby promoted away from us, or a failover in progress)
]);
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
// node-postgres and the server report these without a usable code (or before a code is known).
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /Client was closed and is not queryable/i,
  /Cannot use a pool after calling end/i,
  /the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)/i,
  /sorry, too many clients already/i,
  /terminating connection due to administrator command/i,
];

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

function isUnavailableSignal(error: unknown): boolean {
  if (
    error instanceof DatabaseUnavailableError ||
    // TypeORM releases a query runner whose connection raised an error; the next use of that transaction
    // (a command's, typically) then reports the release instead of the lost connection.
    error instanceof QueryRunnerAlreadyReleasedError ||
    error instanceof QueryRunnerProviderAlreadyReleasedError
  ) {
    return true;
  }
  const code = codeOf(error);
  if (
    code !== undefined &&
    (/^08[0-9A-Z]{3}$/.test(code) || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_NODE_CODES.has(code))
  ) {
    return true;
  }
  const message = error instanceof Error ? error.message : undefined;
  return message !== undefined && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message));
}

/** Whether `error`, or anything it wraps (a TypeORM QueryFailedError's driver error, say), has this SQLSTATE. */
export function hasSqlState(error: unknown, sqlState: string): boolean {
  for (const candidate of wrappedErrors(error)) if (codeOf(candidate) === sqlState) return true;
  return false;
}

/** The error itself and what it wraps: a driver error, a `cause` chain, the attempts of an AggregateError. */
function* wrappedErrors(error: unknown): Generator<unknown> {
  const pending: unknown[] = [error];
  const seen = new Set<unknown>();
  // Bounded: a hostile or cyclic chain must not keep an error handler busy.
  while (pending.length > 0 && seen.size < 32) {
    const current = pending.shift();
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    yield current;
    if (current instanceof QueryFailedError) pending.push(current.driverError as unknown);
    pending.push((current as { cause?: unknown }).cause);
    if (current instanceof AggregateError) pending.push(...(current.errors as unknown[]));
  }
}

/**
 * THE classifier of connection-level failures: whether `error`, or anything it wraps, means the database could
 * not be reached, dropped the connection, or will not take work now (refused, reset, terminated by the
 * administrator, too many connections, starting up, read-only, pool connect timeout). Such a failure is
 * transient and nothing was committed: the API answers it as `503 service_unavailable` wherever it was raised
 * (docs/decisions/0012-http-details.md), the admin CLI as a one-line message, the worker retries the job.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const candidate of wrappedErrors(error)) if (isUnavailableSignal(candidate)) return true;
  return false;
}

/** Connection failures become DatabaseUnavailableError; every other error is returned unchanged. */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError) return error;
  return isDatabaseUnavailable(error) ? new DatabaseUnavailableError(error) : error;
}
