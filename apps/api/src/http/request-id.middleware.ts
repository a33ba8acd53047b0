import { randomBase62 } from '@prior-auth/platform';
import type { RequestHandler } from 'express';
import { setRequestContext, type RequestContext } from './request-context';

/**
 * An `X-Request-Id` a caller or a proxy in front sent is kept as the request id when it is well formed: 8 to 128
 * letters, digits and `._:-` (a UUID, a proxy's id). Anything else is ignored and an id is generated
 * (docs/decisions/0034-operability.md).
 */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/;

export const requestIdMiddleware: RequestHandler = (req, res, next) => {
  const incoming = req.headers['x-request-id'];
  const requestId =
    typeof incoming === 'string' && WELL_FORMED_REQUEST_ID.test(incoming)
      ? incoming
      : `req_${randomBase62(20)}`;
  const context: RequestContext = { requestId, startedAt: process.hrtime.bigint() };
  setRequestContext(req, context);
  res.setHeader('Request-Id', requestId);
  next();
};
