import type { Logger } from '@prior-auth/platform';
import type { Request, RequestHandler, Response } from 'express';
import type { HttpMetrics } from './http-metrics';
import { routePattern } from './http-metrics';
import { requestContext } from './request-context';

/**
 * What is noted of every answered request, from one `finish` listener (docs/performance.md): its latency in
 * the metrics' histogram, and one structured access-log line (id, method, route pattern, never the raw path
 * with ids, status, latency). The route and the latency are worked out once for both.
 */
export function requestObserver(logger: Logger, metrics: HttpMetrics): RequestHandler {
  const observe = (req: Request, res: Response): void => {
    const context = requestContext(req);
    const latencyMs = Number(process.hrtime.bigint() - context.startedAt) / 1e6;
    const route = routePattern(req);
    metrics.observe(req.method, route, res.statusCode, latencyMs / 1000);
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
  };
  return (req, res, next) => {
    res.once('finish', () => observe(req, res));
    next();
  };
}
