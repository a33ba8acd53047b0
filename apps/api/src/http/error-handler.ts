import { isDomainError } from '@prior-auth/domain';
import { isDatabaseUnavailable, isInvalidCursorError } from '@prior-auth/persistence-postgres';
import type { Logger } from '@prior-auth/platform';
import type { ErrorRequestHandler, Response } from 'express';
import { DatabaseOutageTracker } from './database-outage-tracker';
import { DOMAIN_ERROR_HTTP_STATUS } from './error-mapping';
import { HttpError, type ValidationIssue } from './http-error';
import { requestContext } from './request-context';

export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    retryable: boolean;
    details: Record<string, unknown>;
    issues: ValidationIssue[];
  };
  requestId: string;
}

export function errorEnvelope(
  requestId: string,
  code: string,
  message: string,
  options: { retryable?: boolean; details?: Record<string, unknown>; issues?: ValidationIssue[] } = {},
): ErrorEnvelope {
  return {
    error: {
      code,
      message,
      retryable: options.retryable ?? false,
      details: options.details ?? {},
      issues: options.issues ?? [],
    },
    requestId,
  };
}

/** How the JSON body parser (body-parser, raw-body) failed to read a request body. */
export type BodyReadFailure = 'aborted' | 'too_large' | 'not_json' | 'unreadable';

/**
 * The body parser's own refusals, told apart from every other error: http-errors' client errors (`expose: true`,
 * a 4xx `status` equal to `statusCode`) that carry body-parser's `type` (`request.aborted`, `entity.too.large`,
 * `entity.parse.failed`, `request.size.invalid`, `charset.unsupported`, ...) or are an error of the stream it read
 * that it wrapped with `createError(400, err)` and no `type`: zlib's for a body that does not decompress (gzip,
 * deflate, br), the request's own when the client went away. They are the client's doing, and are classified
 * before any database check: an aborted body carries `code: 'ECONNABORTED'`, which is also a database connection
 * code.
 */
export function bodyReadFailure(error: unknown): BodyReadFailure | null {
  if (error === null || typeof error !== 'object') return null;
  const { expose, status, statusCode, type, errno, code } = error as Record<string, unknown>;
  if (expose !== true || typeof status !== 'number' || status !== statusCode || status < 400 || status >= 500)
    return null;
  if (type === undefined) {
    // An error of the stream body-parser read, which it wrapped as a 400 without a `type`.
    if (status !== 400 || typeof code !== 'string') return null;
    // The request stream's own error when the client went away (raw-body usually reports `request.aborted`).
    if (code === 'ECONNRESET' || code === 'ECONNABORTED') return 'aborted';
    // zlib's (Z_DATA_ERROR, Z_BUF_ERROR, brotli's ERR_*): the body does not decompress.
    return typeof errno === 'number' ? 'unreadable' : null;
  }
  if (typeof type !== 'string') return null;
  if (type === 'request.aborted') return 'aborted';
  if (type === 'entity.too.large') return 'too_large';
  if (type === 'entity.parse.failed') return 'not_json';
  return 'unreadable';
}

/** Turns any thrown error into the spec's envelope; unknown errors become a 500 with no internals exposed. */
export function toErrorResponse(
  error: unknown,
  requestId: string,
): { status: number; body: ErrorEnvelope; headers: Record<string, string> } {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      headers: error.options.headers ?? {},
      body: errorEnvelope(requestId, error.code, error.message, error.options),
    };
  }
  if (isDomainError(error)) {
    return {
      status: DOMAIN_ERROR_HTTP_STATUS[error.code],
      headers: {},
      body: errorEnvelope(requestId, error.code, error.message, {
        details: error.details,
        retryable: error.retryable,
      }),
    };
  }
  if (isInvalidCursorError(error)) {
    // Decision 0023: a tampered cursor, or one of another tenant or filter set, is a validation failure.
    return {
      status: 422,
      headers: {},
      body: errorEnvelope(
        requestId,
        'request_validation_failed',
        'The request is invalid; see issues for each field.',
        {
          issues: [
            {
              errorType: 'value_error',
              location: ['query', 'cursor'],
              message: 'cursor is not valid for this list; start again without it',
            },
          ],
        },
      ),
    };
  }
  const bodyFailure = bodyReadFailure(error);
  if (bodyFailure === 'too_large') {
    return {
      status: 413,
      headers: {},
      body: errorEnvelope(requestId, 'payload_too_large', 'The request body is too large.'),
    };
  }
  if (bodyFailure === 'not_json') {
    return {
      status: 400,
      headers: {},
      body: errorEnvelope(requestId, 'bad_request', 'The request body is not valid JSON.'),
    };
  }
  if (bodyFailure !== null) {
    return {
      status: 400,
      headers: {},
      body: errorEnvelope(requestId, 'bad_request', 'The request body could not be read.'),
    };
  }
  if (isDatabaseUnavailable(error)) {
    // Wherever it was raised (the API-key lookup, a read, a command): nothing was committed (a transaction
    // fails as a whole), so the same request may simply be retried (docs/decisions/0012-http-details.md).
    return {
      status: 503,
      headers: { 'Retry-After': '1' },
      body: errorEnvelope(
        requestId,
        'service_unavailable',
        'The service is temporarily unavailable; retry shortly.',
        {
          retryable: true,
        },
      ),
    };
  }
  return {
    status: 500,
    headers: {},
    body: errorEnvelope(requestId, 'internal_error', 'An unexpected error occurred; it is safe to retry.', {
      retryable: true,
    }),
  };
}

export function sendError(res: Response, error: unknown, requestId: string): void {
  const { status, body, headers } = toErrorResponse(error, requestId);
  res.status(status).set(headers).json(body);
}

export function errorHandler(
  logger: Logger,
  outage = new DatabaseOutageTracker(logger),
): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const { requestId } = requestContext(req);
    if (bodyReadFailure(error) === 'aborted') {
      // The client closed the connection before its body arrived (or it was cut for taking too long): nobody is
      // left to answer, and it says nothing about the database (its ECONNABORTED is not a database's).
      logger.info({ requestId }, 'request ended before its body arrived');
      return;
    }
    const { status, body } = toErrorResponse(error, requestId);
    // An outage is logged by the tracker when it starts and ends, not once per refused request.
    if (body.error.code === 'service_unavailable') outage.refused(error);
    // Only the error's class and message reach the log: bodies (PHI) never do.
    else if (status >= 500)
      logger.error(
        {
          requestId,
          err: {
            name: (error as Error)?.name,
            message: (error as Error)?.message,
            stack: (error as Error)?.stack,
          },
        },
        'request failed',
      );
    if (res.headersSent) return;
    sendError(res, error, requestId);
  };
}
