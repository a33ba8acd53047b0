import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import helmet from 'helmet';
import { HttpError } from '../http/http-error';
import { methodNotAllowed } from '../http/method-not-allowed';
import { addRoutes, type Resource } from '../http/route-table';
import type { OpenApiDocument } from './openapi.document';
import { documentResponse, TAGS, type OperationDoc } from './openapi.operations';

/*
 * The OpenAPI document and a reference page for it (docs/decisions/0012: `/v1/openapi.json` needs the API key
 * like every /v1 path; the same document is public at `/openapi.json`, which `/docs` renders). The page is
 * Swagger UI from the `swagger-ui-dist` package, served from this process: no CDN, nothing fetched elsewhere.
 */

const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

/** Started by the page once the bundle has loaded; a file of its own, so the CSP needs no inline script. */
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Prior-Authorization Service API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <noscript>This page needs JavaScript; the OpenAPI document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/docs-initializer.js"></script>
</body>
</html>
`;

/** The only files under /docs/assets: the page's own initializer and three files of swagger-ui-dist. */
type Asset = { type: string; file: string } | { type: string; text: string };

const ASSETS: Record<string, Asset> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' },
  'favicon-32x32.png': { type: 'image/png', file: 'favicon-32x32.png' },
  'docs-initializer.js': { type: 'text/javascript; charset=utf-8', text: INITIALIZER },
};

const contents = new Map<string, Promise<Buffer>>();
/** One of the few files of swagger-ui-dist the page uses, read once per process. */
const fileContents = (file: string): Promise<Buffer> => {
  let bytes = contents.get(file);
  if (!bytes) {
    bytes = readFile(join(SWAGGER_UI_DIR, file));
    // A failed read is not kept: the next request tries again.
    bytes.catch(() => contents.delete(file));
    contents.set(file, bytes);
  }
  return bytes;
};

/**
 * What the page needs and nothing more, on /docs only (every other response keeps helmet's default policy):
 * scripts and styles from this origin, the style sheet's data: images, and fetches of the document (and of
 * "Try it out") to this origin. No inline script or style: checked in headless Chromium with a report-uri,
 * which received no violation report.
 */
export const DOCS_CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
  objectSrc: ["'none'"],
};

const docsPolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: DOCS_CONTENT_SECURITY_POLICY,
});

/** Sends the document's JSON text (rendered once, by the caller). */
const sendDocument = async (text: string, res: Response): Promise<void> => {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(text);
};

const documentRoute = (doc: Pick<OperationDoc, 'operationId' | 'summary' | 'description' | 'access'>) => ({
  serve: (text: string, _req: Request, res: Response) => sendDocument(text, res),
  openapi: { ...doc, responses: { 200: documentResponse('This document.') }, errors: [] },
});

/** `GET /v1/openapi.json`, on the authenticated /v1 router; served the document's JSON text. */
export const AUTHENTICATED_DOCUMENT_RESOURCE: Resource<string> = {
  mounts: [{ path: '/v1', tag: TAGS.docs, operationIdSuffix: '' }],
  routes: {
    '/openapi.json': {
      get: documentRoute({
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI document',
        description:
          'Requires the API key like every /v1 path; the same document is public at /openapi.json.',
      }),
    },
  },
};

/** `GET /openapi.json`: the same document, public. */
export const PUBLIC_DOCUMENT_RESOURCE: Resource<string> = {
  mounts: [{ path: '', tag: TAGS.docs, operationIdSuffix: '' }],
  routes: {
    '/openapi.json': {
      get: documentRoute({
        operationId: 'getPublicOpenApiDocument',
        summary: 'This OpenAPI document (public)',
        access: 'public',
      }),
    },
  },
};

/** The public routes: `GET /openapi.json`, `GET /docs` and `GET /docs/assets/:asset`. */
export function docsRouter(document: OpenApiDocument): Router {
  const router = express.Router();
  addRoutes(router, PUBLIC_DOCUMENT_RESOURCE.routes, JSON.stringify(document));
  router
    .route('/docs')
    .get(docsPolicy, (_req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.send(PAGE);
    })
    .all(methodNotAllowed);
  router
    .route('/docs/assets/:asset')
    .get(docsPolicy, (req, res, next) => {
      const asset = Object.hasOwn(ASSETS, String(req.params.asset))
        ? ASSETS[String(req.params.asset)]
        : undefined;
      if (!asset) {
        next(new HttpError(404, 'not_found', 'No such file of the reference page.'));
        return;
      }
      const headers = { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=3600' };
      if ('text' in asset) {
        res.set(headers).send(asset.text);
        return;
      }
      // Read once and sent whole: a static file stream would honour If-Match, If-Unmodified-Since and Range
      // on a file with no validators and fail such requests outside the error envelope (0015).
      fileContents(asset.file).then((bytes) => res.set(headers).send(bytes), next);
    })
    .all(methodNotAllowed);
  return router;
}
