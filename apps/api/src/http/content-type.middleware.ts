import type { RequestHandler } from 'express';
import { HttpError } from './http-error';

const JSON_TYPES = ['application/json', 'application/*+json'];

/** A request carries a body when it announces one: a non-zero Content-Length or a chunked transfer. */
const hasBody = (headers: Record<string, string | string[] | undefined>): boolean =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * Every body this API reads is JSON (spec: "Content-Type: application/json where a body is sent"). A body sent
 * with another content type, or with none, is refused with 400 bad_request (decision 0023: "a non-JSON body →
 * 400"; see docs/decisions/0012-http-details.md) before anything parses it. Routes that take raw bytes must be
 * mounted before this middleware.
 */
export const jsonBodiesOnly: RequestHandler = (req, _res, next) => {
  if (!hasBody(req.headers) || req.is(JSON_TYPES)) {
    next();
    return;
  }
  next(
    new HttpError(
      400,
      'bad_request',
      'The request body must be JSON, sent with Content-Type: application/json.',
    ),
  );
};
