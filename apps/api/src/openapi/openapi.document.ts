import { ALLOWED_FILE_CONTENT_TYPES } from '@prior-auth/domain';
import { API_VERSION_HEADER, CURRENT_API_VERSION, LEGACY_API_VERSION } from '@prior-auth/platform';
import { LIVE_INPUT_KEYS } from '@prior-auth/payer-portal';
import type { oas31 } from 'openapi3-ts';
import { AUTHORIZATION_RESOURCE } from '../authorization/authorization.routes';
import { CATALOG_RESOURCE } from '../catalog/catalog.routes';
import { EVENT_RESOURCE } from '../events/event.routes';
import { FILE_RESOURCE } from '../files/file.routes';
import { HEALTH_RESOURCE } from '../health/health.routes';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../http/pagination';
import {
  LIVE_INPUT_POINTER_PHASES,
  MAX_LIVE_INPUT_PASTE_LENGTH,
  MAX_LIVE_INPUT_SCROLL_DELTA,
  MAX_LIVE_INPUT_TEXT_LENGTH,
} from '../live-view/live-input.request';
import { MANUAL_HANDOFF_RESOURCE } from '../manual-handoff/manual-handoff.routes';
import { WEBHOOK_ENDPOINT_RESOURCE } from '../webhooks/webhook-endpoint.routes';
import {
  errorsOf,
  header,
  headers,
  param,
  parameters,
  pathParameter,
  ref,
  schemas,
} from './openapi.components';
import { AUTHENTICATED_DOCUMENT_RESOURCE, PUBLIC_DOCUMENT_RESOURCE } from './docs.routes';
import { ERROR_HTTP_STATUS, type ErrorCode } from './error-catalog';
import {
  codeList,
  documentResource,
  JSON_MEDIA_TYPE,
  jsonResponse,
  operation,
  TAGS,
  type Response,
} from './openapi.operations';
import { boolean, enumOf, number, object, string } from './schema-builders';

/*
 * The OpenAPI 3.1 description of every endpoint the API serves. The operations of the route tables come from
 * their entries (docs/decisions/0040-routes-feed-the-openapi-document.md); the paths served outside them
 * (metrics, file bytes, capability URLs, the reference page) are described here. The API tests validate every
 * request and response they make against this document (test/contract), so it cannot drift from the
 * implementation.
 */

export type OpenApiDocument = oas31.OpenAPIObject;

/**
 * The blob paths exist only with the filesystem file store; with S3 every method on them answers 404
 * not_found. The extension tells readers (and the contract tests) so.
 */
const SERVED_WITH_FILESYSTEM_STORAGE = {
  'x-served-only-with': 'BLOB_STORAGE_URL=file://… (otherwise every method answers 404 not_found)',
} as const;

/** The paths the route tables define: each route under each prefix it is served at. */
const ROUTED_PATHS: oas31.PathsObject = {};
for (const resource of [
  HEALTH_RESOURCE,
  CATALOG_RESOURCE,
  AUTHORIZATION_RESOURCE,
  MANUAL_HANDOFF_RESOURCE,
  FILE_RESOURCE,
  EVENT_RESOURCE,
  WEBHOOK_ENDPOINT_RESOURCE,
  AUTHENTICATED_DOCUMENT_RESOURCE,
  PUBLIC_DOCUMENT_RESOURCE,
]) {
  for (const [path, item] of Object.entries(documentResource(resource))) {
    // Two tables on one path would make one of them vanish from the document.
    if (Object.hasOwn(ROUTED_PATHS, path)) throw new Error(`${path} is in two route tables`);
    ROUTED_PATHS[path] = item;
  }
}

/** The paths served outside the route tables: metrics, file bytes, capability URLs and the reference page. */
const OTHER_PATHS: oas31.PathsObject = {
  '/metrics': {
    get: operation({
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      description:
        "Request latency by route pattern and status (`prior_auth_http_request_duration_seconds`) and the process's own metrics, in the Prometheus text format.",
      tag: TAGS.health,
      access: 'public',
      responses: {
        200: {
          description: 'The Prometheus text exposition format.',
          headers: { 'Request-Id': header('RequestId') },
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
      },
      errors: [],
    }),
  },
  '/blobs/upload/{token}': {
    ...SERVED_WITH_FILESYSTEM_STORAGE,
    parameters: [param('BlobToken')],
    put: operation({
      operationId: 'uploadFileBytes',
      summary: 'Upload file bytes (upload step 2)',
      description:
        'The `uploadUrl` of a file, served by this API when files are stored on its filesystem ' +
        '(`BLOB_STORAGE_URL=file://…`; with S3 the URL points at the bucket and this path answers 404). No API ' +
        'key: the signed URL is the credential. Send the raw bytes with the declared Content-Type.',
      tag: TAGS.blobs,
      access: 'capability',
      requestBody: {
        required: true,
        content: Object.fromEntries(
          ALLOWED_FILE_CONTENT_TYPES.map((type) => [type, { schema: string({ contentMediaType: type }) }]),
        ),
      },
      responses: { 200: jsonResponse('The bytes are stored.', ref('BlobUploadResult')) },
      errors: [
        'upload_url_invalid',
        'upload_url_expired',
        'upload_content_type_mismatch',
        'upload_too_large',
        'upload_interrupted',
        'not_found',
      ],
    }),
  },
  '/blobs/download/{token}': {
    ...SERVED_WITH_FILESYSTEM_STORAGE,
    parameters: [param('BlobToken')],
    get: operation({
      operationId: 'downloadFileBytes',
      summary: 'Download file bytes',
      description:
        'The `downloadUrl` of a ready file (filesystem storage only, like the upload path). No API key; the ' +
        'answer is an attachment with the file’s verified content type.',
      tag: TAGS.blobs,
      access: 'capability',
      responses: {
        200: {
          description: 'The file bytes.',
          headers: { 'Request-Id': header('RequestId') },
          content: Object.fromEntries(
            [...ALLOWED_FILE_CONTENT_TYPES, 'application/octet-stream'].map((type) => [
              type,
              { schema: string({ contentMediaType: type }) },
            ]),
          ),
        },
      },
      errors: ['download_url_invalid', 'download_url_expired', 'download_not_found', 'not_found'],
    }),
  },
  '/grants/{token}': {
    parameters: [param('GrantToken')],
    get: operation({
      operationId: 'openAccessGrant',
      summary: 'Open an access grant',
      description:
        'The `url` of an access grant. No API key: the signed URL is the credential. Checks signature, ' +
        'revocation, expiry and that the handoff is still active (or the live session still live), audits the ' +
        'attempt (time, client address, user agent, outcome) whatever its outcome, then redirects to the ' +
        'runtime session.',
      tag: TAGS.grants,
      access: 'capability',
      responses: {
        303: {
          description:
            'Redirect to the runtime session (interactive, or read-only for a live-session grant).',
          headers: { 'Request-Id': header('RequestId'), Location: header('Location') },
        },
      },
      errors: [
        'access_grant_invalid',
        'access_grant_revoked',
        'access_grant_expired',
        'access_grant_subject_inactive',
      ],
    }),
  },
  '/sandbox-portal/sessions/{token}': {
    parameters: [param('SandboxSessionToken')],
    ...Object.fromEntries(
      (['get', 'post'] as const).map((method) => [
        method,
        operation({
          operationId: method === 'get' ? 'viewSandboxPortalSession' : 'submitSandboxPortalSession',
          summary:
            method === 'get'
              ? 'The sandbox payer’s session page'
              : 'Submit the request at the sandbox payer (interactive sessions)',
          description:
            'Where a sandbox grant redirects: an HTML page of the simulated payer portal. The interactive page ' +
            'submits the request to the simulated payer and shows its reference number (report it when ' +
            'completing the handoff); the read-only page has no controls and refuses POST. Refusals are HTML ' +
            'pages too (403 tampered or read-only, 410 expired or session ended).',
          tag: TAGS.grants,
          access: 'capability',
          ...(method === 'post'
            ? {
                requestBody: {
                  required: false,
                  content: { 'application/x-www-form-urlencoded': { schema: object({}) } },
                },
              }
            : {}),
          responses: Object.fromEntries(
            [
              [200, 'The session page.'],
              [403, 'The link is not valid, or the session is read-only (POST).'],
              [404, 'No such session.'],
              [405, 'Another method than GET, HEAD or POST.'],
              [410, 'The link has expired or the session has ended.'],
              [503, 'The sandbox portal cannot be reached (its database is unavailable).'],
            ].map(([status, description]) => [
              String(status),
              {
                description: String(description),
                headers: { 'Request-Id': header('RequestId') },
                content: { 'text/html': { schema: string() } },
              },
            ]),
          ),
          errors: [],
        }),
      ]),
    ),
  },
  '/live-sessions/{token}': {
    parameters: [param('LiveViewToken')],
    get: operation({
      operationId: 'viewLiveSession',
      summary: 'Read-only live view of a browser session at the payer',
      description:
        'Where a live-session grant redirects while a portal run of the case is live (decision 0033): an HTML ' +
        'page showing the browser’s screen as it changes, fed by `…/stream`. No API key: the signed URL is the ' +
        'credential, checked against its grant (revocation, expiry) and the session on every use, and audited. ' +
        'Any other method, and anything sent to `…/input`, is input and is refused (`access_grant_invalid`).',
      tag: TAGS.grants,
      access: 'capability',
      responses: {
        200: {
          description: 'The live view page.',
          headers: { 'Request-Id': header('RequestId') },
          content: { 'text/html': { schema: string() } },
        },
      },
      errors: [
        'access_grant_invalid',
        'access_grant_revoked',
        'access_grant_expired',
        'access_grant_subject_inactive',
      ],
    }),
  },
  '/live-sessions/{token}/stream': {
    parameters: [param('LiveViewToken')],
    get: operation({
      operationId: 'streamLiveSession',
      summary: 'The live view’s frames (server-sent events)',
      description:
        'Server-sent events: `frame` (`{seq, page, contentType, capturedAt, image}`, the image base64-encoded) ' +
        'at once with the newest frame and again for each newer one, then `ended` (`{reason: "ended" | ' +
        '"expired"}`) when the session ends or the grant expires. Checked and audited like the page.',
      tag: TAGS.grants,
      access: 'capability',
      responses: {
        200: {
          description: 'The event stream.',
          headers: { 'Request-Id': header('RequestId') },
          content: { 'text/event-stream': { schema: string() } },
        },
      },
      errors: [
        'access_grant_invalid',
        'access_grant_revoked',
        'access_grant_expired',
        'access_grant_subject_inactive',
      ],
    }),
  },
  '/live-sessions/{token}/input': {
    parameters: [param('LiveViewToken')],
    post: operation({
      operationId: 'sendLiveSessionInput',
      summary: 'A click, key, scroll, drag or paste in an interactive live view',
      description:
        'What the interactive view of a manual-handoff grant sends (decision 0038): one input, dispatched in ' +
        'order to the browser page of the session by the worker that owns it. Checked against the grant and ' +
        'the session and audited like the page; a read-only (live-session) grant is refused ' +
        '(`access_grant_invalid`). No API key: the signed URL is the credential.',
      tag: TAGS.grants,
      access: 'capability',
      requestBody: {
        required: true,
        content: {
          [JSON_MEDIA_TYPE]: {
            schema: {
              oneOf: [
                object(
                  {
                    kind: enumOf(['click']),
                    x: number({ minimum: 0, maximum: 1, description: 'From the left edge, as a fraction.' }),
                    y: number({ minimum: 0, maximum: 1, description: 'From the top edge, as a fraction.' }),
                  },
                  { title: 'Click' },
                ),
                object({ kind: enumOf(['key']), key: enumOf(LIVE_INPUT_KEYS) }, { title: 'Key' }),
                object(
                  {
                    kind: enumOf(['text']),
                    text: string({
                      minLength: 1,
                      maxLength: MAX_LIVE_INPUT_TEXT_LENGTH,
                      description: 'Printable characters; control keys go as `key`.',
                    }),
                  },
                  { title: 'Text' },
                ),
                object(
                  {
                    kind: enumOf(['scroll']),
                    x: number({
                      minimum: 0,
                      maximum: 1,
                      description: 'Where the pointer is, from the left.',
                    }),
                    y: number({ minimum: 0, maximum: 1, description: 'Where the pointer is, from the top.' }),
                    deltaX: number({
                      description: `CSS pixels to the right; clamped to ±${MAX_LIVE_INPUT_SCROLL_DELTA}.`,
                    }),
                    deltaY: number({
                      description: `CSS pixels down; clamped to ±${MAX_LIVE_INPUT_SCROLL_DELTA}.`,
                    }),
                  },
                  { title: 'Scroll' },
                ),
                object(
                  {
                    kind: enumOf(['pointer']),
                    phase: enumOf(LIVE_INPUT_POINTER_PHASES, {
                      description:
                        'A drag: the button pressed (`down`), moved while held (`move`), released (`up`).',
                    }),
                    x: number({ minimum: 0, maximum: 1, description: 'From the left edge, as a fraction.' }),
                    y: number({ minimum: 0, maximum: 1, description: 'From the top edge, as a fraction.' }),
                  },
                  { title: 'Pointer' },
                ),
                object(
                  {
                    kind: enumOf(['paste']),
                    text: string({
                      minLength: 1,
                      maxLength: MAX_LIVE_INPUT_PASTE_LENGTH,
                      description: 'Pasted plain text: printable characters, tabs and line breaks.',
                    }),
                  },
                  { title: 'Paste' },
                ),
              ],
            },
          },
        },
      },
      responses: {
        202: jsonResponse(
          'Taken: sent on to the browser of the session.',
          object({ accepted: boolean({ enum: [true] }) }),
        ),
      },
      // Its own JSON body parser (LIVE_INPUT_BODY_LIMIT_BYTES): not JSON → bad_request, too large → payload_too_large.
      errors: [
        'bad_request',
        'payload_too_large',
        'request_validation_failed',
        'access_grant_invalid',
        'access_grant_revoked',
        'access_grant_expired',
        'access_grant_subject_inactive',
      ],
    }),
  },
  '/docs': {
    get: operation({
      operationId: 'getApiReference',
      summary: 'API reference page',
      description: 'A browsable reference of this document (Swagger UI, served from this service).',
      tag: TAGS.docs,
      access: 'public',
      responses: {
        200: {
          description: 'An HTML page.',
          headers: { 'Request-Id': header('RequestId') },
          content: { 'text/html': { schema: string() } },
        },
      },
      errors: [],
    }),
  },
  '/docs/assets/{asset}': {
    parameters: [{ ...pathParameter('asset', 'A file of the reference page.') }],
    get: operation({
      operationId: 'getApiReferenceAsset',
      summary: 'API reference page assets',
      tag: TAGS.docs,
      access: 'public',
      responses: {
        200: {
          description: 'A script, style sheet or image of the reference page.',
          headers: { 'Request-Id': header('RequestId') },
          content: Object.fromEntries(
            ['text/javascript', 'text/css', 'image/png'].map((type) => [type, { schema: string() }]),
          ),
        },
      },
      errors: ['not_found'],
    }),
  },
};

const paths: oas31.PathsObject = { ...ROUTED_PATHS, ...OTHER_PATHS };

const DESCRIPTION = `
The prior-authorization service: an HTTP + JSON API that tracks prior-authorization cases from requirements
(answers and documents) through submission to the payer, proof of receipt and the payer's decision.

**Authentication.** Every \`/v1\` request carries \`Authorization: Bearer <API_KEY>\`. Keys belong to one
organization and one environment (\`pa_sandbox_…\` or \`pa_live_…\`); a key of one environment is never valid
in the other. Another organization's or environment's objects answer 404. \`/health\`, the probes \`/livez\` and
\`/readyz\`, \`/metrics\`, this document at
\`/openapi.json\`, \`/docs\`, the signed \`/blobs/…\` URLs, access-grant URLs (\`/grants/…\`) and the sandbox
session pages they lead to need no key: the signed URL is the credential.

**Versions.** Two API versions: \`${LEGACY_API_VERSION}\` (legacy shapes) and \`${CURRENT_API_VERSION}\`
(current, the default). A request's version is its \`${API_VERSION_HEADER}\` header, else the version pinned on
its API key; every \`/v1\` response names the version used in the same header. Responses that carry an
authorization are \`oneOf\` the current and the legacy shape: the version decides which. The stored case is the
same under both.

**Requests.** A request that carries a body must send \`Content-Type: application/json\` (the sandbox session
page's HTML form excepted; any other type or
invalid JSON → 400 \`bad_request\`; over the size limit → 413 \`payload_too_large\`). Unknown fields are refused
(422, \`errorType: unknown_field\`).

**Concurrency.** Responses that carry an authorization or a manual handoff have \`ETag: "<version>"\`;
mutations require it back in \`If-Match\` (missing → 428, malformed → 400, stale → 409 \`version_conflict\`); a
handoff's own commands take the handoff's version.

**Idempotency.** Command POSTs accept \`Idempotency-Key\` (required on create, attach, confirm, cancel and every
manual-handoff, access-grant and live-session-grant POST). The
same key and request answer the stored status and body byte for byte with \`Idempotent-Replayed: true\`.

**Errors.** Every error has the envelope \`{error: {code, message, retryable, details, issues}, requestId}\`;
clients match on \`error.code\`. Each operation lists its statuses and codes. Beyond them, a path no route
serves answers 404 \`not_found\` (under \`/v1\`, an invalid key is a 401 first) and a known path with a method
it does not serve answers 405 \`method_not_allowed\` (components \`NotFound\` and \`MethodNotAllowed\`).
Before any route: a path that is not valid UTF-8 or holds control characters (\`%00\`) answers 404
\`not_found\`, such a query parameter 422; headers over the server's limit answer 431 \`headers_too_large\`,
a request that is not valid HTTP 400 \`bad_request\`, one not received in time 408 \`request_timeout\`.

**Paths.** \`/v1/prior-authorizations/…\` is an alias: every \`/v1/prior-auth/authorizations/…\` operation is
served there too, with the same requests and responses.

**Rate limits** (decision 0035). Each API key has a budget, by default 100 requests per second with bursts up to
200, shared by every API process; past it → 429 \`rate_limited\` (\`retryable: true\`) with \`Retry-After\`
in seconds. Every answer to a request with a valid key carries \`RateLimit-Limit\`, \`RateLimit-Remaining\`
and \`RateLimit-Reset\`. An address that makes too many requests without a valid key (30 a minute by
default) is answered 429 for the rest of that minute, whatever key it sends.

**Browsers (CORS).** API keys are server-side secrets: by default no browser origin may call the API. A
deployment may allow origins (\`CORS_ALLOWED_ORIGINS\`); preflight \`OPTIONS\` requests never need a key.

**Lists** answer \`{data, pagination: {nextCursor}}\`, newest first; \`limit\` is 1–${MAX_LIMIT}
(default ${DEFAULT_LIMIT}).
`.trim();

const genericError = (code: ErrorCode): Response => {
  const status = ERROR_HTTP_STATUS[code];
  return jsonResponse(codeList([code]), errorsOf([code]), {
    ...(status === 401 ? { 'WWW-Authenticate': header('WWWAuthenticate') } : {}),
  });
};

/** The API's OpenAPI 3.1 document, served at `/v1/openapi.json` and `/openapi.json`. */
export const openApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Prior-Authorization Service API',
    version: '1.0.0',
    description: DESCRIPTION,
  },
  servers: [{ url: '/', description: 'This deployment' }],
  security: [{ bearerAuth: [] }],
  tags: [
    { name: TAGS.health, description: 'Public liveness, readiness and metrics.' },
    { name: TAGS.catalog, description: 'The payer catalog and the serviceable routes.' },
    { name: TAGS.events, description: 'What happened to the organization’s cases, handoffs and files.' },
    {
      name: TAGS.webhooks,
      description: 'Where events are sent, signed per the Standard Webhooks specification.',
    },
    { name: TAGS.authorizations, description: 'Prior-authorization cases.' },
    {
      name: TAGS.authorizationsAlt,
      description:
        'An alias: `/v1/prior-authorizations/…` serves the same operations and responses as ' +
        '`/v1/prior-auth/authorizations/…` (the second path family the spec names); `Location` on create ' +
        'names this family.',
    },
    {
      name: TAGS.handoffs,
      description: 'A human takes over a payer interaction automation cannot finish; live-session views.',
    },
    { name: TAGS.handoffsAlt, description: 'The same operations under the second path family.' },
    {
      name: TAGS.grants,
      description:
        'Opening access-grant URLs (no API key) and the sandbox payer’s session page they lead to.',
    },
    { name: TAGS.files, description: 'Supporting documents: create, upload, complete, then attach.' },
    { name: TAGS.blobs, description: 'Signed upload and download URLs of the filesystem file store.' },
    { name: TAGS.docs, description: 'This document and its reference page.' },
  ],
  paths,
  components: {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'pa_sandbox_… or pa_live_…',
        description:
          'An API key of the organization; the key decides the environment (sandbox or production).',
      },
    },
    schemas,
    parameters,
    headers,
    responses: {
      Unauthorized: genericError('unauthorized'),
      NotFound: genericError('not_found'),
      MethodNotAllowed: genericError('method_not_allowed'),
    },
  },
};
