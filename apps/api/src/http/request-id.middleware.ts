import { randomBase62 } from '@prior-auth/platform';
import type { RequestHandler } from 'express';
import { setRequestContext } from './request-context';

export const requestIdMiddleware: RequestHandler = (req, res, next) => {
  const requestId = `req_${randomBase62(20)}`;
  setRequestContext(req, { requestId, startedAt: process.hrtime.bigint() });
  res.setHeader('Request-Id', requestId);
  next();
};
