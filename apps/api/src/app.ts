import type { AppConfig, Logger } from '@prior-auth/platform';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Container } from 'inversify';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator';
import { authenticationMiddleware } from './auth/authentication.middleware';
import { AuthorizationController } from './authorization/authorization.controller';
import { authorizationRouter } from './authorization/authorization.routes';
import { CatalogController } from './catalog/catalog.controller';
import { SandboxController } from './sandbox/sandbox.controller';
import { sandboxPortalRouter } from './sandbox/sandbox-portal.routes';
import { blobRouter } from './files/blob.routes';
import { FileController } from './files/file.controller';
import { fileRouter } from './files/file.routes';
import { grantRouter } from './grants/grant.routes';
import { HealthController } from './health/health.controller';
import { ManualHandoffController } from './manual-handoff/manual-handoff.controller';
import { accessLogMiddleware } from './http/access-log.middleware';
import { announceApiVersion, resolveApiVersion } from './http/api-version.middleware';
import { asyncHandler } from './http/async-handler';
import { jsonBodiesOnly } from './http/content-type.middleware';
import { DatabaseOutageTracker } from './http/database-outage-tracker';
import { errorHandler } from './http/error-handler';
import { HttpError } from './http/http-error';
import { safeJsonBody, wellFormedRequestTarget } from './http/input-guards.middleware';
import { methodNotAllowed } from './http/method-not-allowed';
import { requestIdMiddleware } from './http/request-id.middleware';
import { docsRouter, openApiDocumentHandler } from './openapi/docs.routes';
import { openApiDocument } from './openapi/openapi.document';
import { TOKENS } from './tokens';

/** The Express application for one container; tests drive it with supertest, `main` with a real server. */
export function createApp(container: Container): Express {
  const config = container.get<AppConfig>(TOKENS.Config);
  const logger = container.get<Logger>(TOKENS.Logger);
  const outage = new DatabaseOutageTracker(logger);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);

  app.use(requestIdMiddleware);
  // Before every check that can refuse a request, so each /v1 answer names a version (decision 17).
  app.use('/v1', announceApiVersion);
  app.use(accessLogMiddleware(logger));
  app.use(helmet());
  app.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // NUL bytes or invalid UTF-8 in the path or query: refused before any route reads the database.
  app.use(wellFormedRequestTarget);
  // Raw file bytes (filesystem blob store): no API key, and before the JSON-only check and the body parser.
  app.use(blobRouter(container.get(TOKENS.BlobStorage), logger));
  // Access-grant URLs and the sandbox payer's session page they lead to: capabilities, no API key. The page
  // takes an HTML form post, so it is mounted before the JSON-only check too.
  app.use(grantRouter(container.get(TOKENS.AccessGrantGate)));
  app.use(sandboxPortalRouter(container.get(TOKENS.SandboxSessionPage)));
  app.use(jsonBodiesOnly);
  app.use(express.json({ limit: config.REQUEST_BODY_LIMIT_BYTES, type: () => true, strict: true }));

  const health = container.get(HealthController);
  app
    .route('/health')
    .get(
      asyncHandler(async (req, res) => {
        await health.get(req, res);
        // A database that answers the health check ends an outage too (when no /v1 traffic would).
        if (res.statusCode === 200) outage.answered();
      }),
    )
    .all(methodNotAllowed);
  // The OpenAPI document (public copy) and its reference page; /docs gets its own CSP.
  app.use(docsRouter(openApiDocument));

  const v1 = express.Router();
  v1.use(authenticationMiddleware(container.get(ApiKeyAuthenticator), outage));
  v1.use(resolveApiVersion);
  v1.use(safeJsonBody);
  const catalog = container.get(CatalogController);
  v1.route('/payers')
    .get(asyncHandler((req, res) => catalog.listPayers(req, res)))
    .all(methodNotAllowed);
  v1.route('/payers/:payerId')
    .get(asyncHandler((req, res) => catalog.getPayer(req, res)))
    .all(methodNotAllowed);
  v1.route('/prior-auth/routes')
    .get(asyncHandler((req, res) => catalog.listRoutes(req, res)))
    .all(methodNotAllowed);
  const sandbox = container.get(SandboxController);
  v1.route('/sandbox/scenarios')
    .get(asyncHandler((req, res) => sandbox.listScenarios(req, res)))
    .all(methodNotAllowed);
  const authorizations = authorizationRouter(
    container.get(AuthorizationController),
    container.get(ManualHandoffController),
  );
  v1.use('/prior-auth/authorizations', authorizations);
  v1.use('/prior-authorizations', authorizations);
  v1.use('/files', fileRouter(container.get(FileController)));
  v1.route('/openapi.json').get(openApiDocumentHandler(openApiDocument)).all(methodNotAllowed);
  app.use('/v1', v1);

  app.use((req, _res, next) =>
    next(new HttpError(404, 'not_found', `No route matches ${req.method} ${req.path}.`)),
  );
  app.use(errorHandler(logger, outage));
  return app;
}
