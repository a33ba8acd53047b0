import 'reflect-metadata';
import fc from 'fast-check';
import type { oas31 } from 'openapi3-ts';
import request from 'supertest';
import { listen, type RunningServer } from '../src/http-server';
import { openApiDocument } from '../src/openapi/openapi.document';
import { BASE, client, createBody } from './authorization-helpers';
import { takeContractViolations } from './contract/openapi-contract';
import { prototypeSnapshot } from './support/prototype-snapshot';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * Property-based fuzzing of every operation the OpenAPI document describes: malformed path ids, queries,
 * headers and bodies (wrong types, sizes, deep nesting, unicode, NUL, prototype keys). Whatever the request, the
 * answer is never a 5xx, every error is the envelope (and matches the document, as in every API test), and the
 * process stays healthy. Seeded, so a failure replays; PRIOR_AUTH_FUZZ_SEED and PRIOR_AUTH_FUZZ_RUNS explore
 * further.
 */

const SEED = Number(process.env.PRIOR_AUTH_FUZZ_SEED ?? 20_261_124);
const RUNS_PER_OPERATION = Number(process.env.PRIOR_AUTH_FUZZ_RUNS ?? 15);

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface FuzzOperation {
  method: Method;
  template: string;
  pathParams: string[];
  queryParams: string[];
  /** Top-level fields of the JSON request body, when the operation takes one. */
  bodyFields: string[];
}

const resolve = <T>(value: T | oas31.ReferenceObject): T => {
  if (value && typeof value === 'object' && '$ref' in value) {
    const [, , section, name] = value.$ref.split('/');
    const components = openApiDocument.components as Record<string, Record<string, unknown>>;
    return components[section!]![name!] as T;
  }
  return value as T;
};

function operations(): FuzzOperation[] {
  const found: FuzzOperation[] = [];
  for (const [template, item] of Object.entries(openApiDocument.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((raw) =>
        resolve<oas31.ParameterObject>(raw),
      );
      const bodySchema = resolve<oas31.RequestBodyObject | undefined>(operation.requestBody)?.content?.[
        'application/json'
      ]?.schema;
      const bodyFields = bodySchema
        ? Object.keys(resolve<oas31.SchemaObject>(bodySchema as oas31.SchemaObject).properties ?? {})
        : [];
      found.push({
        method,
        template,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        bodyFields,
      });
    }
  }
  return found;
}

// ---- arbitraries ---------------------------------------------------------------------------------------

const hostileText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  // Any code unit: control characters, NUL, lone surrogates.
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '..',
    '\uFEFF',
    '\u202E',
    'null',
    '__proto__',
    'constructor',
    'prototype',
    '-1',
    '0',
    '1e400',
    '9007199254740993',
    '😀'.repeat(60),
  ),
  fc.integer({ min: 101, max: 12_000 }).map((length) => 'x'.repeat(length)),
);

/** Percent-encodes like a client would; text no client could encode (lone surrogates) is sent as raw bytes. */
const encode = (text: string): string => {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
};

const rawPercent = fc.constantFrom(
  '%00',
  '%C0%AF',
  '%FF',
  '%E2%82',
  '%ZZ',
  '%',
  '%2F',
  '%2e%2e',
  '%0A',
  '%u0000',
);

const pathValue = (known: string[]) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...known) },
    { weight: 3, arbitrary: hostileText.map(encode) },
    { weight: 1, arbitrary: rawPercent },
  );

const queryPairs = (names: string[]) =>
  fc.array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(...names, 'limit', 'cursor', '__proto__', 'constructor', 'a[b]', 'q[]').map(encode),
        hostileText.map(encode),
        rawPercent,
      ),
      fc.oneof(
        hostileText.map(encode),
        fc.integer().map(String),
        fc.constantFrom('1', '100', '101', '0', '2.5', 'abc'),
        rawPercent,
      ),
    ),
    { maxLength: 4 },
  );

/** What Node's HTTP client will send in a header value (latin-1, no control characters but tab). */
const headerText = fc.oneof(
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((code) => code !== 0x7f)
      .map((code) => String.fromCharCode(code)),
    maxLength: 300,
  }),
  fc.constantFrom('', ' ', '\t', '"', 'null'),
);

const jsonText = (value: unknown) => JSON.stringify(value);
/** An object literal written by hand, so keys such as `__proto__` stay keys (no prototype is set). */
const objectText = (entries: Array<[string, unknown]>) =>
  `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;

const bodyText = (fields: string[]) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{',
        '{"a":',
        'null',
        '"x"',
        '[]',
        '[1,2]',
        '1',
        'true',
        '{}',
        '{"a":1}{',
        '\u0000',
        '{"a":"\\ud800"}',
        '{"a":1,"a":2}',
        '{"__proto__":{"polluted":true}}',
        '{"constructor":{"prototype":{"polluted":true}}}',
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(jsonText) },
    {
      weight: 4,
      arbitrary: fc
        .array(
          fc.tuple(
            fc.oneof(
              { weight: 4, arbitrary: fc.constantFrom(...fields, 'unknownField') },
              { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype') },
              { weight: 1, arbitrary: hostileText },
            ),
            fc.oneof(
              fc.jsonValue({ maxDepth: 4 }),
              hostileText,
              fc.dictionary(
                fc.constantFrom('constructor', 'prototype', '__proto__', 'code', 'linkId'),
                fc.jsonValue({ maxDepth: 2 }),
              ),
            ),
          ),
          { maxLength: 6 },
        )
        .map(objectText),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 20, max: 20_000 })
        .map((depth) => `{"${fields[0] ?? 'a'}":${'['.repeat(depth)}${']'.repeat(depth)}}`),
    },
  );

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/merge-patch+json',
      'application/json; charset=utf-16',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/pdf',
    ),
  },
  { weight: 1, arbitrary: headerText },
);

interface FuzzRequest {
  path: Record<string, string>;
  query: Array<[string, string]>;
  authorization: 'sandbox' | 'production' | 'none' | { header: string };
  idempotencyKey: string | null;
  ifMatch: string | null;
  contentType: string;
  version: string | null;
  body: string | undefined;
}

const fuzzRequest = (operation: FuzzOperation, known: Record<string, string[]>) =>
  fc.record<FuzzRequest>({
    path: fc.record(
      Object.fromEntries(operation.pathParams.map((name) => [name, pathValue(known[name] ?? ['x'])])),
    ),
    query: queryPairs(operation.queryParams),
    authorization: fc.oneof(
      { weight: 6, arbitrary: fc.constant('sandbox' as const) },
      { weight: 1, arbitrary: fc.constantFrom('production' as const, 'none' as const) },
      { weight: 1, arbitrary: headerText.map((header) => ({ header })) },
    ),
    idempotencyKey: fc.option(fc.oneof(fc.uuid(), headerText), { nil: null }),
    ifMatch: fc.option(fc.oneof(fc.constantFrom('"1"', '"2"', 'W/"1"', '*', '"1", "2"', '1'), headerText), {
      nil: null,
    }),
    contentType,
    version: fc.option(fc.oneof(fc.constantFrom('2024-01-01', '2025-01-01'), headerText), { nil: null }),
    body: bodyText(operation.bodyFields),
  });

// ---- the property --------------------------------------------------------------------------------------

describe('fuzzing every documented operation', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let known: Record<string, string[]>;
  // A real server (the one `main` starts): Node's own refusals, such as oversized request lines, are part of it.
  let running: RunningServer;
  const prototypeBefore = prototypeSnapshot();

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant();
    const api = client(t.app, tenant.keys.sandbox);
    const created = await api.create(createBody(tenant));
    const file = await api.uploadFile({ ready: false });
    known = {
      authorizationId: [created.body.id],
      fileId: [file.id],
      payerId: ['payer_uhc'],
      attachmentId: ['att_0000000000000000'],
      manualHandoffId: ['mh_0000000000000000'],
      token: ['x'],
      asset: ['swagger-ui.css'],
    };
    running = await listen(t.app, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await running.close(1_000);
    await t.close();
  });

  const send = (operation: FuzzOperation, input: FuzzRequest) => {
    let path = operation.template;
    for (const [name, value] of Object.entries(input.path)) path = path.replace(`{${name}}`, value);
    if (input.query.length > 0)
      path += `?${input.query.map(([name, value]) => `${name}=${value}`).join('&')}`;
    const req = request(`http://127.0.0.1:${running.port}`)[operation.method](path);
    if (input.authorization === 'sandbox' || input.authorization === 'production')
      req.set('Authorization', `Bearer ${tenant.keys[input.authorization]}`);
    else if (input.authorization !== 'none') req.set('Authorization', input.authorization.header);
    if (input.idempotencyKey !== null) req.set('Idempotency-Key', input.idempotencyKey);
    if (input.ifMatch !== null) req.set('If-Match', input.ifMatch);
    if (input.version !== null) req.set('Prior-Auth-Version', input.version);
    if (input.body !== undefined) req.set('Content-Type', input.contentType).send(input.body);
    return req;
  };

  it.each(
    operations().map((operation) => [`${operation.method.toUpperCase()} ${operation.template}`, operation]),
  )(
    '%s: no 5xx, every error in the envelope',
    async (_name, operation) => {
      await fc.assert(
        fc.asyncProperty(fuzzRequest(operation, known), async (input) => {
          const res = await send(operation, input);
          const violations = takeContractViolations();
          expect({ status: res.status, violations }).toEqual({
            status: expect.any(Number),
            violations: [],
          });
          expect(res.status).toBeLessThan(500);
          // The sandbox payer's session pages answer people, in HTML (documented so, checked above).
          if (res.status >= 400 && !/^text\/html/.test(res.headers['content-type'] ?? '')) {
            expect(res.headers['content-type']).toMatch(/^application\/json/);
            expect(res.body).toEqual({
              error: {
                code: expect.any(String),
                message: expect.any(String),
                retryable: expect.any(Boolean),
                details: expect.any(Object),
                issues: expect.any(Array),
              },
              requestId: expect.stringMatching(/^req_/),
            });
            // A replayed command answers the original request's body (decision 0012), so its requestId.
            if (res.headers['idempotent-replayed'] !== 'true')
              expect(res.body.requestId).toBe(res.headers['request-id']);
          }
        }),
        { seed: SEED, numRuns: RUNS_PER_OPERATION },
      );
    },
    30_000,
  );

  it('leaves the process healthy and Object.prototype untouched', async () => {
    expect(prototypeSnapshot()).toEqual(prototypeBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await request(t.app).get('/health').expect(200);
    await client(t.app, tenant.keys.sandbox).create(createBody(tenant)).expect(201);
    await request(t.app)
      .get(`${BASE}?limit=1`)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .expect(200);
  });
});
