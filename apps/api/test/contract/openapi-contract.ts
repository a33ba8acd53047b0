import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import express, { type Express, type RequestHandler } from 'express';
import type { oas31 } from 'openapi3-ts';
import { ERROR_HTTP_STATUS, type ErrorCode } from '../../src/openapi/error-catalog';
import { API_VERSION_HEADER } from '@prior-auth/platform';
import type { OpenApiDocument } from '../../src/openapi/openapi.document';

/*
 * Checks HTTP requests the API accepted (`checkRequest`) and every response against the OpenAPI document: the status must be documented for the operation, every
 * documented required header present and valid, the content type documented, and a JSON body valid against the
 * response schema (Ajv, JSON Schema 2020-12 with formats). Paths no operation serves may only answer the generic
 * errors the document describes in prose: 404 not_found for an unknown path, 405 method_not_allowed for a
 * known path with another method (plus the body, key and infrastructure errors every request can meet).
 */

type Method = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

const COMPONENTS_ID = 'https://prior-auth.invalid/openapi/openapi.components';
const SCHEMA_REF_PREFIX = '#/components/schemas/';
const JSON_MEDIA_TYPE = 'application/json';

export interface ObservedResponse {
  method: string;
  /** The request path, without the query string. */
  path: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

/** A request the API answered, as the recorder saw it once the app had parsed it. */
export interface ObservedRequest {
  method: string;
  /** The request path, without the query string. */
  path: string;
  /** The raw query string (without `?`). */
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; undefined when none was sent or the route reads the bytes itself. */
  body: unknown;
  /** The API version the answer names (`Prior-Auth-Version`), if any. */
  answeredVersion?: string;
}

interface Route {
  template: string;
  pattern: RegExp;
  item: oas31.PathItemObject;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A deep copy where every `#/components/schemas/X` points into the schema registered under COMPONENTS_ID. */
function rewriteSchemaRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(rewriteSchemaRefs) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof member === 'string' && member.startsWith(SCHEMA_REF_PREFIX)
        ? `${COMPONENTS_ID}#/$defs/${member.slice(SCHEMA_REF_PREFIX.length)}`
        : rewriteSchemaRefs(member);
  }
  return out as T;
}

const headerValue = (value: ObservedResponse['headers'][string]): string | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : String(value);

const mediaTypeOf = (contentType: string | undefined): string | undefined =>
  contentType?.split(';')[0]?.trim().toLowerCase() || undefined;

const formatErrors = (errors: ErrorObject[] | null | undefined): string =>
  (errors ?? [])
    .slice(0, 8)
    .map(
      (e) =>
        `    at ${e.instancePath || '(root)'}: ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
    )
    .join('\n');

/** A path the API refuses before routing: a segment that is not UTF-8 or holds control characters (0015). */
const malformedPath = (path: string): boolean =>
  path.split('/').some((segment) => {
    try {
      // eslint-disable-next-line no-control-regex
      return /[\u0000-\u001f\u007f]/.test(decodeURIComponent(segment));
    } catch {
      return true;
    }
  });

const excerpt = (text: string) => (text.length > 600 ? `${text.slice(0, 600)}…` : text);

export class OpenApiContract {
  readonly ajv: Ajv2020;
  private readonly coercingAjv: Ajv2020;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    this.coercingAjv = new Ajv2020({
      strict: true,
      allErrors: true,
      allowUnionTypes: true,
      coerceTypes: true,
    });
    for (const ajv of [this.ajv, this.coercingAjv]) {
      addFormats(ajv);
      ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteSchemaRefs(document.components?.schemas ?? {}) });
    }
    this.routes = Object.entries(document.paths ?? {})
      .map(([template, item]) => ({
        template,
        item: item as oas31.PathItemObject,
        pattern: new RegExp(`^${escapeRegExp(template).replace(/\\\{[^/]+?\\\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // Literal segments win over parameters, as in the router.
      .sort((a, b) => a.params - b.params)
      .map(({ template, item, pattern }) => ({ template, item, pattern }));
  }

  /** Follows a `$ref` to a component (responses, headers, parameters). */
  resolve<T>(value: T | oas31.ReferenceObject): T {
    let current: unknown = value;
    for (let hops = 0; hops < 10; hops += 1) {
      const ref = (current as oas31.ReferenceObject | undefined)?.$ref;
      if (typeof ref !== 'string') return current as T;
      if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
      current = ref
        .slice(2)
        .split('/')
        .reduce<unknown>(
          (node, segment) => (node as Record<string, unknown> | undefined)?.[segment],
          this.document,
        );
      if (current === undefined) throw new Error(`unresolvable $ref ${ref}`);
    }
    throw new Error('$ref chain too long');
  }

  /** The Ajv validator of one schema of the document, compiled once per key. */
  validator(key: string, schema: unknown): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteSchemaRefs(schema as object));
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** The documented path matching a request path, if any. */
  route(path: string): Route | undefined {
    const normalized = path.length > 1 ? path.replace(/\/$/, '') : path;
    return this.routes.find((route) => route.pattern.test(normalized));
  }

  /**
   * Every way a request the API accepted (answered below 400) breaks the document; empty when it conforms. A
   * refused request is what the document says to refuse, so only accepted ones are held to it: an accepted
   * request the document calls invalid means the document is stricter than the API, or describes another
   * request. Checked: each documented parameter (path, query, header) present when required (unless the
   * answered version lets it be left out: `x-optional-parameters-in-version`) and valid when sent; where the
   * operation documents query parameters (its query class refuses others), no other; a body when one is
   * required, none on a POST or PATCH that documents none, and a JSON body valid against its schema.
   */
  checkRequest(request: ObservedRequest, status: number): string[] {
    if (status >= 400) return [];
    const method = request.method.toLowerCase() as Method;
    const route = this.route(request.path);
    const operation = (route?.item[method] ?? (method === 'head' ? route?.item.get : undefined)) as
      oas31.OperationObject | undefined;
    if (!route || !operation) return [];
    const name = `${request.method.toUpperCase()} ${route.template} (request)`;
    const problems: string[] = [];
    const parameters = [...(route.item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter) =>
      this.resolve<oas31.ParameterObject>(parameter),
    );
    const query = new URLSearchParams(request.query);
    const documentedQuery = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
    for (const key of documentedQuery.size > 0 ? new Set(query.keys()) : []) {
      if (!documentedQuery.has(key)) problems.push(`${name}: query parameter ${key} is not documented`);
    }
    const relaxed = new Set(
      (operation['x-optional-parameters-in-version'] as Record<string, string[]> | undefined)?.[
        request.answeredVersion ?? ''
      ] ?? [],
    );
    for (const parameter of parameters) {
      if (parameter.in === 'path') continue;
      const value =
        parameter.in === 'query'
          ? (query.get(parameter.name) ?? undefined)
          : headerValue(request.headers[parameter.name.toLowerCase()]);
      if (value === undefined) {
        if (parameter.required && !relaxed.has(parameter.name))
          problems.push(`${name}: required ${parameter.in} ${parameter.name} is missing`);
        continue;
      }
      if (parameter.schema) {
        const validate = this.parameterValidator(
          `${name} ${parameter.in} ${parameter.name}`,
          parameter.schema,
        );
        if (!validate({ value })) {
          problems.push(
            `${name}: ${parameter.in} ${parameter.name}: ${JSON.stringify(value)} is invalid\n` +
              formatErrors(validate.errors),
          );
        }
      }
    }
    const body = operation.requestBody
      ? this.resolve<oas31.RequestBodyObject>(operation.requestBody)
      : undefined;
    const length = Number(headerValue(request.headers['content-length']) ?? 0);
    const sent = length > 0 || request.headers['transfer-encoding'] !== undefined;
    if (!sent) {
      if (body?.required) problems.push(`${name}: the document requires a body; none was sent`);
      return problems;
    }
    // A body on a read is ignored, as HTTP lets a server do.
    if (!body && (method === 'post' || method === 'patch')) {
      problems.push(`${name}: a body was sent and the document describes none`);
    }
    const mediaType = mediaTypeOf(headerValue(request.headers['content-type']));
    const schema = body?.content?.[JSON_MEDIA_TYPE]?.schema;
    // Raw bytes (a file upload) are the route's own to read: only a parsed JSON body is checked.
    if (!schema || request.body === undefined || !mediaType || !/^application\/(.+\+)?json$/.test(mediaType))
      return problems;
    const validate = this.validator(`${name} body`, schema);
    if (!validate(request.body)) {
      problems.push(
        `${name}: the body does not match the documented schema\n${formatErrors(validate.errors)}\n` +
          `  body: ${excerpt(JSON.stringify(request.body))}`,
      );
    }
    return problems;
  }

  /**
   * Parameters travel as text: a schema of another type (`limit`'s integer) is checked on the text's value,
   * as the API reads it (Ajv's type coercion, on a wrapper so the coerced value has somewhere to go).
   */
  private parameterValidator(key: string, schema: unknown): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.coercingAjv.compile({
        type: 'object',
        properties: { value: rewriteSchemaRefs(schema as object) },
      });
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Every way the response breaks the document; empty when it conforms. */
  check(response: ObservedResponse): string[] {
    const method = response.method.toLowerCase() as Method;
    const route = this.route(response.path);
    // Express answers HEAD with the GET handler (and no body).
    const operation = (route?.item[method] ?? (method === 'head' ? route?.item.get : undefined)) as
      oas31.OperationObject | undefined;
    if (!route || !operation) {
      // A path served only with some configuration (x-served-only-with) answers 404 not_found otherwise.
      const unserved = route === undefined || route.item['x-served-only-with'] !== undefined;
      return this.checkGeneric(response, route === undefined, unserved);
    }

    const name = `${method.toUpperCase()} ${route.template}`;
    const documented = this.resolve<oas31.ResponsesObject>(operation.responses ?? {});
    const declared = documented[String(response.status)] as
      oas31.ResponseObject | oas31.ReferenceObject | undefined;
    if (!declared) {
      return [
        `${name} answered ${response.status}, which the document does not list ` +
          `(documented: ${Object.keys(documented).join(', ')}); body: ${excerpt(response.body.toString('utf8'))}`,
      ];
    }
    const problems: string[] = [];
    const expected = this.resolve<oas31.ResponseObject>(declared);
    const key = `${name} ${response.status}`;

    for (const [headerName, raw] of Object.entries(expected.headers ?? {})) {
      const headerSpec = this.resolve<oas31.HeaderObject>(raw);
      const value = headerValue(response.headers[headerName.toLowerCase()]);
      if (value === undefined) {
        if (headerSpec.required) problems.push(`${key}: required header ${headerName} is missing`);
        continue;
      }
      if (headerSpec.schema) {
        const validate = this.validator(`${key} header ${headerName}`, headerSpec.schema);
        if (!validate(value)) {
          problems.push(
            `${key}: header ${headerName}: ${JSON.stringify(value)} is invalid\n${formatErrors(validate.errors)}`,
          );
        }
      }
    }

    const content = expected.content;
    const mediaType = mediaTypeOf(headerValue(response.headers['content-type']));
    if (!content || Object.keys(content).length === 0) {
      if (response.body.length > 0 && method !== 'head')
        problems.push(`${key}: the document declares no body`);
      return problems;
    }
    if (!mediaType || !content[mediaType]) {
      problems.push(
        `${key}: Content-Type ${mediaType ?? '(none)'} is not documented (${Object.keys(content).join(', ')})`,
      );
      return problems;
    }
    if (method === 'head' || !/^application\/(.+\+)?json$/.test(mediaType)) return problems;
    const schema = content[mediaType]?.schema;
    if (!schema) return problems;
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      return [...problems, `${key}: the body is not JSON: ${excerpt(response.body.toString('utf8'))}`];
    }
    const validate = this.validator(`${key} ${mediaType}`, schema);
    if (!validate(body)) {
      problems.push(
        `${key}: the body does not match the documented schema\n${formatErrors(validate.errors)}\n` +
          `  body: ${excerpt(JSON.stringify(body))}`,
      );
    }
    return problems;
  }

  /**
   * A path no route serves (404 not_found) or a method a known path does not serve (405 method_not_allowed),
   * plus what any request can meet before routing: body errors, and under /v1 the API key and its lookup.
   */
  private checkGeneric(response: ObservedResponse, unknownPath: boolean, mayBeUnserved: boolean): string[] {
    const allowed: ErrorCode[] = [
      ...(unknownPath ? [] : (['method_not_allowed'] as const)),
      ...(mayBeUnserved || malformedPath(response.path) ? (['not_found'] as const) : []),
      'bad_request',
      'payload_too_large',
      // A query parameter that is not valid UTF-8 or holds control characters is refused before routing.
      'request_validation_failed',
      'internal_error',
      ...(response.path.startsWith('/v1/')
        ? (['unauthorized', 'service_unavailable', 'rate_limited'] as const)
        : []),
    ];
    const what = unknownPath
      ? `${response.method} ${response.path} (no documented path)`
      : `${response.method} ${response.path} (method not documented for this path)`;
    if (response.method.toUpperCase() === 'HEAD') {
      return allowed.some((code) => ERROR_HTTP_STATUS[code] === response.status)
        ? []
        : [`${what} answered ${response.status}, which no generic error has`];
    }
    let body: { error?: { code?: string } } | undefined;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      return [`${what} answered ${response.status} with a non-JSON body`];
    }
    const validate = this.validator('generic ErrorEnvelope', { $ref: `${SCHEMA_REF_PREFIX}ErrorEnvelope` });
    if (!validate(body)) return [`${what}: not an error envelope\n${formatErrors(validate.errors)}`];
    const code = body?.error?.code as ErrorCode;
    if (!allowed.includes(code) || ERROR_HTTP_STATUS[code] !== response.status) {
      return [
        `${what} answered ${response.status} ${code}; only ${allowed
          .map((c) => `${ERROR_HTTP_STATUS[c]} ${c}`)
          .join(', ')} may answer it`,
      ];
    }
    return [];
  }
}

// ---- recording in tests --------------------------------------------------------------------------------

const violations: string[] = [];

/** The violations recorded since the last call (the jest setup fails the current test with them). */
export function takeContractViolations(): string[] {
  return violations.splice(0, violations.length);
}

/**
 * An Express middleware that captures each response's status, headers and bytes as they are sent and checks
 * them with `contract`; violations are recorded synchronously before the response leaves, so the test that
 * made the request sees them.
 */
export function contractRecorder(contract: OpenApiContract): RequestHandler {
  return (req, res, next) => {
    const chunks: Buffer[] = [];
    const capture = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(
        Buffer.isBuffer(chunk)
          ? chunk
          : typeof chunk === 'string'
            ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
            : Buffer.from(chunk as Uint8Array),
      );
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.write = ((...args: unknown[]) => {
      capture(args[0], args[1]);
      return write(...args);
    }) as typeof res.write;
    res.end = ((...args: unknown[]) => {
      capture(args[0], args[1]);
      const observed: ObservedResponse = {
        method: req.method,
        path: req.originalUrl.split('?')[0] ?? req.originalUrl,
        status: res.statusCode,
        headers: res.getHeaders() as ObservedResponse['headers'],
        body: Buffer.concat(chunks),
      };
      const [path = '', query = ''] = req.originalUrl.split('?', 2);
      try {
        violations.push(
          ...contract.checkRequest(
            {
              method: req.method,
              path,
              query,
              headers: req.headers,
              body: req.body as unknown,
              answeredVersion: headerValue(observed.headers[API_VERSION_HEADER.toLowerCase()]),
            },
            res.statusCode,
          ),
          ...contract.check(observed),
        );
      } catch (error) {
        violations.push(`${observed.method} ${observed.path}: the contract check failed: ${String(error)}`);
      }
      return end(...args);
    }) as typeof res.end;
    next();
  };
}

/** `app` behind the recorder: what the API tests drive, so every response they receive is checked. */
export function withContractCheck(app: Express, contract: OpenApiContract): Express {
  const checked = express();
  checked.disable('x-powered-by');
  checked.set('etag', false);
  checked.use(contractRecorder(contract));
  checked.use(app);
  return checked;
}
