import type { Logger } from '@prior-auth/platform';
import type { RequestHandler } from 'express';
import { routePattern } from './http-metrics';
import { requestContext } from './request-context';

/** One structured line per request: id, method, route pattern (never the raw path with ids), status, latency. */
export function accessLogMiddleware(logger: Logger): RequestHandler {
  return (req, res, next) => {
    res.on('finish', () => {
      const context = requestContext(req);
      const latencyMs = Number(process.hrtime.bigint() - context.startedAt) / 1e6;
      const route = routePattern(req);
      logger.info(
        {
          requestId: context.requestId,
          method: req.method,
          route,
          status: res.statusCode,
          latencyMs: Math.round(latencyMs * 10) / 10,
          organizationId: context.auth?.scope.organizationId,
          environment: context.auth?.scope.environment,
        },
        'request',
      );
    });
    next();
  };
}
