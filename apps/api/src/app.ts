import type { AppConfig, Logger } from '@prior-auth/platform';
import express, {
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import helmet from 'helmet';
import type { Container } from 'inversify';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import { authenticationMiddleware } from './auth/authentication.middleware';
import { AuthorizationController } from './authorization/authorization.controller';
import { AUTHORIZATION_RESOURCE, authorizationRouter } from './authorization/authorization.routes';
import { LegacyWorkflowController } from './authorization/legacy/legacy-workflow.controller';
import { CatalogController } from './catalog/catalog.controller';
import { CATALOG_RESOURCE } from './catalog/catalog.routes';
import { SandboxController } from './sandbox/sandbox.controller';
import { sandboxPortalRouter } from './sandbox/sandbox-portal.routes';
import { blobRouter } from './files/blob.routes';
import { FileController } from './files/file.controller';
import { FILE_RESOURCE, fileRouter } from './files/file.routes';
import { EventController } from './events/event.controller';
import { EVENT_RESOURCE, eventRouter } from './events/event.routes';
import { WebhookEndpointController } from './webhooks/webhook-endpoint.controller';
import { WEBHOOK_ENDPOINT_RESOURCE, webhookEndpointRouter } from './webhooks/webhook-endpoint.routes';
import { grantRouter } from './grants/grant.routes';
import { liveViewRouter } from './live-view/live-view.routes';
import { HealthController } from './health/health.controller';
import { HEALTH_RESOURCE } from './health/health.routes';
import { ManualHandoffController } from './manual-handoff/manual-handoff.controller';
import { announceApiVersion, resolveApiVersion } from './http/api-version.middleware';
import { jsonBodiesOnly } from './http/content-type.middleware';
import { corsMiddleware } from './http/cors.middleware';
import { DatabaseOutageTracker } from './http/database-outage-tracker';
import { errorHandler } from './http/error-handler';
import { createHttpMetrics } from './http/http-metrics';
import { HttpError } from './http/http-error';
import { safeJsonBody, wellFormedRequestTarget } from './http/input-guards.middleware';
import { ApiRateLimits } from './http/rate-limits.middleware';
import { requestIdMiddleware } from './http/request-id.middleware';
import { requestObserver } from './http/request-observer.middleware';
import { precomputedHeaders } from './http/precomputed-headers.middleware';
import { methodNotAllowed } from './http/method-not-allowed';
import { middlewareChain } from './http/middleware-chain';
import { addRoutes, mountResource } from './http/route-table';
import { AUTHENTICATED_DOCUMENT_RESOURCE, docsRouter } from './openapi/docs.routes';
import { openApiDocument } from './openapi/openapi.document';
import { TOKENS } from './tokens';

/** Whether the request is for /v1 or below, as the router matches a `/v1` mount (any case). */
const isUnderV1 = (req: Request): boolean => {
  const path = req.path;
  return (
    path.length >= 3 && path.slice(0, 3).toLowerCase() === '/v1' && (path.length === 3 || path[3] === '/')
  );
};

/**
 * Runs `routes` only for requests outside /v1 (none of their paths is under it). The router's stack stays
 * visible on the handler, as on a mounted router, for code that lists the routes served.
 */
const outsideV1 = (routes: Router): RequestHandler =>
  Object.assign(
    (req: Request, res: Response, next: NextFunction) => {
      if (isUnderV1(req)) next();
      else routes(req, res, next);
    },
    { stack: routes.stack },
  );

/** Runs `handler` only for requests under /v1, as `app.use('/v1', handler)` would, inside a chain. */
const underV1 =
  (handler: RequestHandler): RequestHandler =>
  (req, res, next) => {
    if (isUnderV1(req)) return handler(req, res, next);
    next();
  };

/** Every answer is built for its request: no shared cache may keep it. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/** The Express application for one container; tests drive it with supertest, `main` with a real server. */
export function createApp(container: Container): Express {
  const config = container.get<AppConfig>(TOKENS.Config);
  const logger = container.get<Logger>(TOKENS.Logger);
  const outage = new DatabaseOutageTracker(logger);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);

  const metrics = createHttpMetrics();
  // The routes outside /v1 come in two groups that a /v1 request skips at once instead of being matched
  // against each of their routes (docs/performance.md).
  const capabilities = express.Router();
  // Raw file bytes (filesystem blob store): no API key, and before the JSON-only check and the body parser.
  capabilities.use(blobRouter(container.get(TOKENS.BlobStorage), logger));
  // Access-grant URLs and the sandbox payer's session page they lead to: capabilities, no API key. The page
  // takes an HTML form post, so it is mounted before the JSON-only check too.
  capabilities.use(grantRouter(container.get(TOKENS.AccessGrantGate)));
  capabilities.use(sandboxPortalRouter(container.get(TOKENS.SandboxSessionPage)));
  // The live view of a worker's browser session (decision 0033): a capability too; input to it is refused.
  capabilities.use(liveViewRouter(container.get(TOKENS.LiveView)));

  const root = express.Router();
  addRoutes(root, HEALTH_RESOURCE.routes, { health: container.get(HealthController), outage });
  // Prometheus scrapes, outside /v1 and without a key (docs/decisions/0034-operability.md).
  root.route('/metrics').get(metrics.handler).all(methodNotAllowed);
  // The OpenAPI document (public copy) and its reference page; /docs gets its own CSP.
  root.use(docsRouter(openApiDocument));

  // What every request goes through, in this order, as one layer of the router (docs/performance.md).
  app.use(
    middlewareChain(
      requestIdMiddleware,
      requestObserver(logger, metrics),
      // Before every check that can refuse a request, so each /v1 answer names a version (decision 0029).
      underV1(announceApiVersion),
      precomputedHeaders(helmet()),
      noStore,
      // Browser origins (decision 0035): none unless configured; preflights answered here, without a key.
      corsMiddleware(config.CORS_ALLOWED_ORIGINS),
      // NUL bytes or invalid UTF-8 in the path or query: refused before any route reads the database.
      wellFormedRequestTarget,
      outsideV1(capabilities),
      jsonBodiesOnly,
      express.json({ limit: config.REQUEST_BODY_LIMIT_BYTES, type: () => true, strict: true }),
      outsideV1(root),
    ),
  );

  const v1 = express.Router();
  const rateLimits = container.get<ApiRateLimits>(TOKENS.RateLimits);
  v1.use(
    middlewareChain(
      rateLimits.addressGate,
      authenticationMiddleware(container.get(ApiKeyAuthenticator), outage, (req, unauthorized) =>
        rateLimits.authenticationFailed(req, unauthorized),
      ),
      rateLimits.keyBudget,
      resolveApiVersion,
      safeJsonBody,
    ),
  );
  // The hottest routes first: a request walks the router's layers in order (docs/performance.md).
  const authorizations = authorizationRouter({
    authorizations: container.get(AuthorizationController),
    handoffs: container.get(ManualHandoffController),
    legacy: container.get(LegacyWorkflowController),
  });
  mountResource(v1, '/v1', AUTHORIZATION_RESOURCE, authorizations);
  addRoutes(v1, CATALOG_RESOURCE.routes, {
    catalog: container.get(CatalogController),
    sandbox: container.get(SandboxController),
  });
  mountResource(v1, '/v1', FILE_RESOURCE, fileRouter(container.get(FileController)));
  mountResource(v1, '/v1', EVENT_RESOURCE, eventRouter(container.get(EventController)));
  mountResource(
    v1,
    '/v1',
    WEBHOOK_ENDPOINT_RESOURCE,
    webhookEndpointRouter(container.get(WebhookEndpointController)),
  );
  addRoutes(v1, AUTHENTICATED_DOCUMENT_RESOURCE.routes, JSON.stringify(openApiDocument));
  app.use('/v1', v1);

  app.use((req, _res, next) =>
    next(new HttpError(404, 'not_found', `No route matches ${req.method} ${req.path}.`)),
  );
  app.use(errorHandler(logger, outage));
  return app;
}
