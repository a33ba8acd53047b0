import type { RequestHandler } from 'express';

/** What a browser script on an allowed origin may send and read (decision 0035). */
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-Match, Prior-Auth-Version';
const EXPOSED_HEADERS = [
  'Request-Id',
  'Prior-Auth-Version',
  'ETag',
  'Location',
  'Retry-After',
  'Idempotent-Replayed',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
].join(', ');
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * Decision 0035: API keys are server-side secrets, so no browser origin may call the API unless the deployment
 * lists it (`CORS_ALLOWED_ORIGINS`). A preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered
 * here, before any API key is asked for: 204, with the CORS headers only for an allowed origin, so a browser
 * on any other origin refuses the real request itself.
 */
export function corsMiddleware(allowedOrigins: readonly string[]): RequestHandler {
  const allowed = new Set(allowedOrigins);
  return (req, res, next) => {
    const origin = req.header('origin');
    res.vary('Origin');
    const permitted = origin !== undefined && allowed.has(origin);
    if (permitted) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    if (req.method === 'OPTIONS' && req.header('access-control-request-method') !== undefined) {
      if (permitted) {
        res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
        res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
      }
      res.status(204).end();
      return;
    }
    next();
  };
}
