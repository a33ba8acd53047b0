import 'reflect-metadata';
import { openApiDocument } from '../../src/openapi/openapi.document';
import { OpenApiContract, type ObservedRequest, type ObservedResponse } from './openapi-contract';

/** The checker the API tests rely on must itself refuse what breaks the document. */
describe('OpenApiContract', () => {
  const contract = new OpenApiContract(openApiDocument);
  const REQUEST_ID = 'req_abcdefghijABCDEFGHIJ';

  const envelope = (code: string, extra: Record<string, unknown> = {}) => ({
    error: { code, message: 'm', retryable: false, details: {}, issues: [], ...extra },
    requestId: REQUEST_ID,
  });
  const response = (overrides: Partial<ObservedResponse> & { json?: unknown }): ObservedResponse => ({
    method: 'GET',
    path: '/v1/payers/payer_uhc',
    status: 200,
    headers: {
      'request-id': REQUEST_ID,
      'content-type': 'application/json; charset=utf-8',
      'prior-auth-version': '2025-01-01',
    },
    body: Buffer.from(JSON.stringify(overrides.json ?? {})),
    ...overrides,
  });
  const payer = {
    id: 'payer_uhc',
    displayName: 'UnitedHealthcare',
    supportedStates: ['CA'],
    supportedServiceTypes: ['outpatient'],
    aliases: ['UHC'],
    status: 'active',
  };

  it('accepts a documented response', () => {
    expect(contract.check(response({ json: payer }))).toEqual([]);
    expect(contract.check(response({ status: 404, json: envelope('payer_not_found') }))).toEqual([]);
  });

  it('refuses an undocumented status, a code another status owns, and a field the schema does not know', () => {
    expect(contract.check(response({ status: 409, json: envelope('version_conflict') }))).toEqual([
      expect.stringContaining('answered 409, which the document does not list'),
    ]);
    expect(contract.check(response({ status: 404, json: envelope('authorization_not_found') }))).toEqual([
      expect.stringContaining('/error/code: must be equal to one of the allowed values'),
    ]);
    expect(contract.check(response({ json: { ...payer, internal: 1 } }))).toEqual([
      expect.stringContaining('must NOT have additional properties'),
    ]);
    const { aliases: _aliases, ...withoutAliases } = payer;
    expect(contract.check(response({ json: withoutAliases }))).toEqual([
      expect.stringContaining("must have required property 'aliases'"),
    ]);
  });

  it('refuses a missing or invalid required header and an undocumented content type', () => {
    expect(
      contract.check(response({ json: payer, headers: { 'content-type': 'application/json' } })),
    ).toEqual([
      expect.stringContaining('required header Request-Id is missing'),
      expect.stringContaining('required header Prior-Auth-Version is missing'),
    ]);
    const retrieve = (etag: string | undefined) =>
      contract.check(
        response({
          path: '/v1/prior-auth/authorizations/auth_x',
          headers: { 'request-id': REQUEST_ID, 'content-type': 'application/json', etag },
          json: {},
        }),
      );
    expect(retrieve(undefined)).toEqual(
      expect.arrayContaining([expect.stringContaining('required header ETag is missing')]),
    );
    expect(retrieve('W/"1"')).toEqual(expect.arrayContaining([expect.stringContaining('header ETag')]));
    expect(
      contract.check(
        response({
          json: payer,
          headers: {
            'request-id': REQUEST_ID,
            'content-type': 'text/html',
            'prior-auth-version': '2025-01-01',
          },
        }),
      ),
    ).toEqual([expect.stringContaining('Content-Type text/html is not documented')]);
  });

  it('allows only the generic errors on unknown paths and undocumented methods', () => {
    const notFound = (path: string, code: string, status: number) =>
      contract.check(response({ path, status, json: envelope(code) }));
    expect(notFound('/nope', 'not_found', 404)).toEqual([]);
    expect(notFound('/v1/nope', 'unauthorized', 401)).toEqual([]);
    expect(notFound('/nope', 'unauthorized', 401)).toEqual([expect.stringContaining('only')]);
    expect(notFound('/nope', 'not_found', 200)).toEqual([expect.stringContaining('only')]);
    expect(
      contract.check(response({ method: 'PUT', status: 405, json: envelope('method_not_allowed') })),
    ).toEqual([]);
    expect(contract.check(response({ method: 'PUT', status: 404, json: envelope('not_found') }))).toEqual([
      expect.stringContaining('only'),
    ]);
    // HEAD is answered by the GET operation, without a body.
    expect(contract.check(response({ method: 'HEAD', body: Buffer.alloc(0), json: undefined }))).toEqual([]);
    expect(
      contract.check(response({ method: 'HEAD', path: '/nope', status: 404, body: Buffer.alloc(0) })),
    ).toEqual([]);
  });

  describe('requests', () => {
    const observed = (overrides: Partial<ObservedRequest>): ObservedRequest => ({
      method: 'GET',
      path: '/v1/prior-auth/authorizations',
      query: '',
      headers: {},
      body: undefined,
      ...overrides,
    });
    const confirm = (headers: ObservedRequest['headers'], body: unknown) =>
      observed({
        method: 'POST',
        path: '/v1/prior-authorizations/auth_x/confirm',
        headers: {
          'content-type': 'application/json',
          ...(body === undefined ? {} : { 'content-length': String(JSON.stringify(body).length) }),
          ...headers,
        },
        body,
      });
    const preconditions = { 'if-match': '"3"', 'idempotency-key': 'key-1' };

    it('accepts a documented request, its query parameters read as text', () => {
      expect(contract.checkRequest(observed({ query: 'status=processing&limit=10' }), 200)).toEqual([]);
      expect(contract.checkRequest(confirm(preconditions, { nextActionId: 'na_1' }), 200)).toEqual([]);
      expect(contract.checkRequest(confirm(preconditions, undefined), 200)).toEqual([]);
      // A body on a read is ignored; an unknown query parameter where the operation takes none too.
      expect(
        contract.checkRequest(
          observed({
            path: '/v1/payers/payer_uhc',
            query: 'x=1',
            headers: { 'content-length': '2' },
            body: {},
          }),
          200,
        ),
      ).toEqual([]);
      // Under the legacy version create may leave the Idempotency-Key out (x-optional-parameters-in-version).
      const legacyCreate = observed({
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '50' },
        body: { templateSelection: {}, providerNpi: '1234567893' },
      });
      const keyProblems = (request: ObservedRequest) =>
        contract.checkRequest(request, 201).filter((problem) => problem.includes('Idempotency-Key'));
      expect(keyProblems({ ...legacyCreate, answeredVersion: '2024-01-01' })).toEqual([]);
      expect(keyProblems({ ...legacyCreate, answeredVersion: '2025-01-01' })).toEqual([
        expect.stringContaining('required header Idempotency-Key is missing'),
      ]);
    });

    it('refuses an accepted request the document calls invalid', () => {
      expect(contract.checkRequest(observed({ query: 'status=nope&limit=500&sort=asc' }), 200)).toEqual([
        expect.stringContaining('query parameter sort is not documented'),
        expect.stringContaining('query status: "nope" is invalid'),
        expect.stringContaining('query limit: "500" is invalid'),
      ]);
      expect(contract.checkRequest(confirm({ 'if-match': 'W/"3"' }, { nextActionId: 1, x: 2 }), 200)).toEqual(
        [
          expect.stringContaining('header If-Match: "W/\\"3\\"" is invalid'),
          expect.stringContaining('required header Idempotency-Key is missing'),
          expect.stringContaining('the body does not match the documented schema'),
        ],
      );
      expect(
        contract.checkRequest(
          observed({
            method: 'POST',
            path: '/v1/files',
            headers: { 'content-type': 'application/json' },
          }),
          201,
        ),
      ).toEqual([expect.stringContaining('the document requires a body; none was sent')]);
      expect(
        contract.checkRequest(
          observed({
            method: 'POST',
            path: '/v1/prior-auth/authorizations',
            headers: { 'content-type': 'application/json', 'content-length': '2' },
            body: {},
          }),
          201,
        ),
      ).toEqual([
        expect.stringContaining('required header Idempotency-Key is missing'),
        expect.stringContaining('the body does not match the documented schema'),
      ]);
    });

    it('leaves refused requests to the response check', () => {
      expect(contract.checkRequest(observed({ query: 'status=nope' }), 422)).toEqual([]);
      expect(contract.checkRequest(confirm({}, { x: 1 }), 428)).toEqual([]);
    });
  });
});
