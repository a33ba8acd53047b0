import { API_VERSION_HEADER } from '@prior-auth/platform';
import type { oas31 } from 'openapi3-ts';
import type { Resource, RouteMethod } from '../http/route-table';
import { DOMAIN_ERROR_HTTP_STATUS } from '../http/error-mapping';
import type { PageQuery } from '../http/pagination';
import { errorsOf, header, param, parameters, type ParameterName } from './openapi.components';
import { ERROR_DESCRIPTIONS, ERROR_HTTP_STATUS, type ErrorCode } from './error-catalog';
import { queryParameters, type RequestClass } from './request-schema';
import { openObject, string, type Schema } from './schema-builders';

/*
 * Operations of the OpenAPI document: their responses (errors generated from each operation's code list and
 * the status tables in `error-catalog.ts`) and the operations the route tables define (`documentResource`).
 */

// ---- responses -----------------------------------------------------------------------------------------

export type Response = oas31.ResponseObject;
export type Headers = Record<string, oas31.ReferenceObject | oas31.HeaderObject>;

export const JSON_MEDIA_TYPE = 'application/json';

export const jsonResponse = (description: string, schema: Schema, extraHeaders: Headers = {}): Response => ({
  description,
  headers: { 'Request-Id': header('RequestId'), ...extraHeaders },
  content: { [JSON_MEDIA_TYPE]: { schema } },
});

export const codeList = (codes: readonly ErrorCode[]) =>
  codes.map((code) => `- \`${code}\`: ${ERROR_DESCRIPTIONS[code]}`).join('\n');

/** One response per status, the envelope's `code` restricted to the codes listed for it. */
function errorResponses(
  codes: readonly ErrorCode[],
  options: { command: boolean },
): Record<string, Response> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_HTTP_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Response> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const extra: Headers = {};
    if (status === 401) extra['WWW-Authenticate'] = header('WWWAuthenticate');
    if (
      group.includes('service_unavailable') ||
      group.includes('idempotency_key_in_use') ||
      group.includes('rate_limited')
    )
      extra['Retry-After'] = header('RetryAfter');
    // Domain refusals of a command are stored with its key and replayed like its success (not the rest).
    if (options.command && group.some((code) => Object.hasOwn(DOMAIN_ERROR_HTTP_STATUS, code)))
      extra['Idempotent-Replayed'] = header('IdempotentReplayed');
    responses[String(status)] = jsonResponse(codeList(group), errorsOf(group), extra);
  }
  return responses;
}

// ---- operations ----------------------------------------------------------------------------------------

export type Access = 'api_key' | 'public' | 'capability';

export interface OperationSpec {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  parameters?: Array<oas31.ParameterObject | oas31.ReferenceObject>;
  requestBody?: oas31.RequestBodyObject;
  responses: Record<string, Response>;
  /** The operation's own error codes; those every request can meet are added from `access`. */
  errors: readonly ErrorCode[];
  access: Access;
  /** A command whose answer is stored under its Idempotency-Key. */
  command?: boolean;
}

/**
 * Errors any request can meet, by how the route is mounted (see `app.ts`). Before routing, a path value that
 * is not valid UTF-8 or holds control characters (`%00`) is a `not_found`, such a query parameter a
 * `request_validation_failed`; under `/v1`, so is a body with prototype keys or nested too deep.
 */
const COMMON_ERRORS: Record<Access, readonly ErrorCode[]> = {
  // Behind the JSON body checks and the API-key lookup (which reads the database).
  api_key: [
    'bad_request',
    'unauthorized',
    'not_found',
    'payload_too_large',
    'request_validation_failed',
    'internal_error',
    'service_unavailable',
    // The key's budget, or the address's limit on requests without a valid key (decision 0035).
    'rate_limited',
  ],
  // Behind the JSON body checks, no key.
  public: ['bad_request', 'not_found', 'payload_too_large', 'request_validation_failed', 'internal_error'],
  // Blob routes: mounted before the body checks; the token is the credential.
  capability: ['not_found', 'request_validation_failed', 'internal_error'],
};

/**
 * Every `/v1` operation takes the version header and answers it (decision 0029), errors included, and names
 * the key's rate-limit budget (decision 0035) once the key is known.
 */
const withApiVersion = (responses: Record<string, Response>): Record<string, Response> =>
  Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      {
        ...response,
        headers: {
          ...response.headers,
          [API_VERSION_HEADER]: header('ApiVersion'),
          'RateLimit-Limit': header('RateLimitLimit'),
          'RateLimit-Remaining': header('RateLimitRemaining'),
          'RateLimit-Reset': header('RateLimitReset'),
        },
      },
    ]),
  );

export function operation(spec: OperationSpec): oas31.OperationObject {
  const versioned = spec.access === 'api_key';
  const parameters = [...(versioned ? [param('ApiVersion')] : []), ...(spec.parameters ?? [])];
  const responses = {
    ...spec.responses,
    ...errorResponses([...spec.errors, ...COMMON_ERRORS[spec.access]], { command: spec.command ?? false }),
  };
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    ...(versioned ? {} : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    responses: versioned ? withApiVersion(responses) : responses,
  };
}

export const TAGS = {
  health: 'Health',
  catalog: 'Catalog',
  authorizations: 'Authorizations',
  authorizationsAlt: 'Authorizations (/v1/prior-authorizations)',
  handoffs: 'Manual handoffs',
  handoffsAlt: 'Manual handoffs (/v1/prior-authorizations)',
  grants: 'Access grants',
  files: 'Files',
  blobs: 'File bytes',
  docs: 'Documentation',
  events: 'Events',
  webhooks: 'Webhook endpoints',
} as const;

export const documentResponse = (description: string) =>
  jsonResponse(description, {
    type: 'object',
    description: 'An OpenAPI 3.1 document (this one).',
    properties: {
      openapi: string({ pattern: '^3\\.1\\.' }),
      info: openObject('Title, version and description.'),
      paths: openObject('The operations.'),
    },
    required: ['openapi', 'info', 'paths'],
    additionalProperties: true,
  });

/** The Idempotency-Key conflicts any command with a key can meet. */
export const COMMAND_CONFLICTS: readonly ErrorCode[] = ['idempotency_key_reused', 'idempotency_key_in_use'];

/** A JSON body: a request class (its component, generated from the class) or `EmptyBody`. */
export const jsonBody = (
  body: RequestClass | 'EmptyBody',
  required: boolean,
  description?: string,
): oas31.RequestBodyObject => ({
  required,
  ...(description ? { description } : {}),
  content: {
    [JSON_MEDIA_TYPE]: {
      schema: { $ref: `#/components/schemas/${body === 'EmptyBody' ? body : body.name}` },
    },
  },
});

// ---- operations defined by the route tables -------------------------------------------------------------

/**
 * What a route entry says of its operation (docs/decisions/0040-routes-feed-the-openapi-document.md). The
 * path, its parameters and the mount's tag come from the route table; the preconditions and the query class
 * become parameters; the prose, examples, responses and error codes are written by hand.
 */
export interface OperationDoc extends Omit<OperationSpec, 'tag' | 'access' | 'command'> {
  /** Defaults to the tag of the mount the route is served under. */
  tag?: string;
  /** Defaults to `api_key`. */
  access?: Access;
  /** A command whose answer is stored under its Idempotency-Key (decision 0023). */
  idempotencyKey?: 'required' | 'optional';
  /** The version precondition: required, or checked only when sent (the legacy workflow, decision 0032). */
  ifMatch?: 'required' | 'optional';
  /** The class that validates the query; its properties are the query parameters. */
  query?: RequestClass;
  /**
   * Required parameters an API version lets the request leave out (Idempotency-Key on create under the legacy
   * version, decision 0029), published as `x-optional-parameters-in-version` for clients and the contract
   * tests.
   */
  optionalInVersion?: Readonly<Record<string, readonly string[]>>;
}

/** The component of a path parameter, found by its Express name (`:authorizationId`); one per name. */
function pathParameterOf(name: string): oas31.ReferenceObject {
  const [match, ...others] = (Object.entries(parameters) as Array<[ParameterName, oas31.ParameterObject]>)
    .filter(([, parameter]) => parameter.in === 'path' && parameter.name === name)
    .map(([component]) => component);
  if (match === undefined || others.length > 0) {
    throw new Error(`no single path parameter component for :${name}`);
  }
  return param(match);
}

/** The pagination parameters every list shares, as references to their components. */
const PAGE_PARAMETERS: Record<keyof PageQuery, oas31.ReferenceObject> = {
  limit: param('Limit'),
  cursor: param('Cursor'),
};

const IF_MATCH: Record<'required' | 'optional', ParameterName> = {
  required: 'IfMatch',
  optional: 'IfMatchOptional',
};
const IDEMPOTENCY_KEY: Record<'required' | 'optional', ParameterName> = {
  required: 'IdempotencyKeyRequired',
  optional: 'IdempotencyKeyOptional',
};

function documentedOperation(
  doc: OperationDoc,
  tag: string,
  operationIdSuffix: string,
): oas31.OperationObject {
  const { idempotencyKey, ifMatch, query, optionalInVersion, ...spec } = doc;
  const parameters = [
    ...(ifMatch === undefined ? [] : [param(IF_MATCH[ifMatch])]),
    ...(idempotencyKey === undefined ? [] : [param(IDEMPOTENCY_KEY[idempotencyKey])]),
    ...(query === undefined ? [] : queryParameters(query, PAGE_PARAMETERS)),
    ...(spec.parameters ?? []),
  ];
  return {
    ...operation({
      ...spec,
      operationId: `${spec.operationId}${operationIdSuffix}`,
      tag: spec.tag ?? tag,
      access: spec.access ?? 'api_key',
      ...(parameters.length > 0 ? { parameters } : {}),
      command: idempotencyKey !== undefined,
    }),
    ...(optionalInVersion === undefined ? {} : { 'x-optional-parameters-in-version': optionalInVersion }),
  };
}

/** `/:authorizationId/answers` under `/v1/prior-auth/authorizations` as OpenAPI writes it. */
const templateOf = (mount: string, path: string): string =>
  `${mount}${path}`.replace(/(.)\/$/, '$1').replace(/:(\w+)/g, '{$1}');

/** The paths of a resource: every route of its table under each of its mounts. */
export function documentResource(resource: Resource<never>): oas31.PathsObject {
  const paths: oas31.PathsObject = {};
  for (const mount of resource.mounts) {
    for (const [path, methods] of Object.entries(resource.routes)) {
      const names = [...path.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
      const item: oas31.PathItemObject = {};
      if (names.length > 0) {
        item.parameters = names.map(pathParameterOf);
      }
      for (const [method, route] of Object.entries(methods) as Array<
        [RouteMethod, { openapi: OperationDoc }]
      >) {
        item[method] = documentedOperation(route.openapi, mount.tag, mount.operationIdSuffix);
      }
      paths[templateOf(mount.path, path)] = item;
    }
  }
  return paths;
}
