import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { requestContext } from './request-context';

/** The route pattern a request matched (never the raw path with ids), or `unmatched`. */
export const routePattern = (req: Parameters<RequestHandler>[0]): string =>
  req.route?.path
    ? `${requestContext(req).routeBase ?? req.baseUrl}${String(req.route.path)}`.replace(/(.)\/$/, '$1')
    : 'unmatched';

export interface HttpMetrics {
  registry: Registry;
  /** Notes one answered request's latency by method, route pattern and status (`requestObserver` calls it). */
  observe(method: string, route: string, status: number, seconds: number): void;
  /** `GET /metrics`: the Prometheus text format (docs/decisions/0034-operability.md). */
  handler: RequestHandler;
}

/** The prefix of the process's own metrics (prom-client's defaults: memory, CPU, event loop, collector). */
export const API_METRICS_PREFIX = 'prior_auth_api_';

/** The API's metrics: request latency by route and status, and the process's own (memory, CPU, event loop). */
export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: API_METRICS_PREFIX });
  const duration = new Histogram({
    name: 'prior_auth_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // One labelled child per method, route and status, found again without hashing the labels per request.
  const children = new Map<string, ReturnType<typeof duration.labels>>();
  return {
    registry,
    observe: (method, route, status, seconds) => {
      const key = `${method} ${status} ${route}`;
      let child = children.get(key);
      if (child === undefined) {
        child = duration.labels({ method, route, status: String(status) });
        children.set(key, child);
      }
      child.observe(seconds);
    },
    handler: (_req, res, next) => {
      registry.metrics().then((text) => {
        res.setHeader('Content-Type', registry.contentType);
        res.status(200).send(text);
      }, next);
    },
  };
}
