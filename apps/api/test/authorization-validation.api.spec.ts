import request from 'supertest';
import {
  BASE,
  client,
  countRows,
  CPAP_SELECTION,
  createBody,
  newKey,
  type Client,
} from './authorization-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

type Issue = { errorType: string; location: string[]; message: string };

describe('malformed authorization requests', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let c: Client;
  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant();
    c = client(t.app, tenant.keys.sandbox);
  });
  afterAll(() => t.close());

  /** Nothing of the tenant's was written: no authorization, no idempotency record. */
  const expectNothingStored = async () => {
    expect(await countRows(t.dataSource, 'authorizations', tenant.organizationId)).toBe(0);
    expect(await countRows(t.dataSource, 'idempotency_records', tenant.organizationId)).toBe(0);
  };

  const selection = (overrides: Record<string, unknown>) => ({
    templateSelection: { ...CPAP_SELECTION, ...overrides },
  });
  const answers = (...answer: unknown[]) => ({
    questionnaireResponse: { item: [{ linkId: 'patient.memberId', answer }] },
  });
  const huge = 'x'.repeat(20_000);

  const cases: Array<[string, Record<string, unknown>, Array<Partial<Issue>>]> = [
    [
      'a numeric NPI',
      { providerNpi: 1234567893 },
      [{ location: ['body', 'providerNpi'], errorType: 'type_error' }],
    ],
    ['a short NPI', { providerNpi: '123' }, [{ location: ['body', 'providerNpi'], errorType: 'pattern' }]],
    [
      'a missing template selection',
      { templateSelection: undefined },
      [{ location: ['body', 'templateSelection'], errorType: 'missing' }],
    ],
    [
      'a template selection that is a string',
      { templateSelection: 'uhc' },
      [{ location: ['body', 'templateSelection'] }],
    ],
    [
      'a template selection that is an array',
      { templateSelection: [CPAP_SELECTION] },
      [{ location: ['body', 'templateSelection'] }],
    ],
    [
      'an unknown service type',
      selection({ serviceType: 'dental' }),
      [{ location: ['body', 'templateSelection', 'serviceType'], errorType: 'enum' }],
    ],
    [
      'an unknown code system',
      selection({ serviceCodeSystem: 'icd10' }),
      [{ location: ['body', 'templateSelection', 'serviceCodeSystem'], errorType: 'enum' }],
    ],
    [
      'a three-letter state',
      selection({ insuranceState: 'CAL' }),
      [{ location: ['body', 'templateSelection', 'insuranceState'], errorType: 'pattern' }],
    ],
    [
      'a numeric service code',
      selection({ serviceCode: 601 }),
      [{ location: ['body', 'templateSelection', 'serviceCode'], errorType: 'type_error' }],
    ],
    [
      'a huge service code',
      selection({ serviceCode: huge }),
      [{ location: ['body', 'templateSelection', 'serviceCode'], errorType: 'too_long' }],
    ],
    [
      'a missing payer id',
      selection({ payerId: undefined }),
      [{ location: ['body', 'templateSelection', 'payerId'], errorType: 'missing' }],
    ],
    [
      'an unknown field in the selection',
      selection({ color: 'blue' }),
      [{ location: ['body', 'templateSelection', 'color'], errorType: 'unknown_field' }],
    ],
    [
      'an unknown top-level field',
      { status: 'completed' },
      [{ location: ['body', 'status'], errorType: 'unknown_field' }],
    ],
    [
      'an unknown policy value',
      { policy: { finalSubmission: 'sometimes' } },
      [{ location: ['body', 'policy', 'finalSubmission'], errorType: 'enum' }],
    ],
    [
      'an unknown policy field',
      { policy: { finalSubmission: 'automatic', mode: 'x' } },
      [{ location: ['body', 'policy', 'mode'], errorType: 'unknown_field' }],
    ],
    ['a policy that is a string', { policy: 'automatic' }, [{ location: ['body', 'policy'] }]],
    [
      'an unknown portal auth mode',
      { portalAuthMode: 'password' },
      [{ location: ['body', 'portalAuthMode'], errorType: 'enum' }],
    ],
    [
      'a null portal auth mode',
      { portalAuthMode: null },
      [{ location: ['body', 'portalAuthMode'], errorType: 'enum' }],
    ],
    [
      'items that are not an array',
      { questionnaireResponse: { item: {} } },
      [{ location: ['body', 'questionnaireResponse', 'item'] }],
    ],
    [
      'an item without linkId',
      { questionnaireResponse: { item: [{ answer: [] }] } },
      [{ location: ['body', 'questionnaireResponse', 'item', '0', 'linkId'], errorType: 'missing' }],
    ],
    [
      'an answer with two values',
      answers({ valueString: 'a', valueBoolean: true }),
      [{ location: ['body', 'questionnaireResponse', 'item', '0', 'answer', '0'], errorType: 'value_error' }],
    ],
    [
      'an answer with no value',
      answers({}),
      [{ location: ['body', 'questionnaireResponse', 'item', '0', 'answer', '0'], errorType: 'value_error' }],
    ],
    [
      'a null answer value',
      answers({ valueString: null }),
      [
        {
          location: ['body', 'questionnaireResponse', 'item', '0', 'answer', '0', 'valueString'],
          errorType: 'type_error',
        },
      ],
    ],
    [
      'a decimal sent as a string',
      answers({ valueDecimal: '22' }),
      [
        {
          location: ['body', 'questionnaireResponse', 'item', '0', 'answer', '0', 'valueDecimal'],
          errorType: 'type_error',
        },
      ],
    ],
    [
      'a boolean sent as a string',
      answers({ valueBoolean: 'true' }),
      [
        {
          location: ['body', 'questionnaireResponse', 'item', '0', 'answer', '0', 'valueBoolean'],
          errorType: 'type_error',
        },
      ],
    ],
    [
      'a coding without code',
      answers({ valueCoding: {} }),
      [
        {
          location: ['body', 'questionnaireResponse', 'item', '0', 'answer', '0', 'valueCoding', 'code'],
          errorType: 'missing',
        },
      ],
    ],
    [
      'a coding with an unknown field',
      answers({ valueCoding: { code: 'psg', weight: 1 } }),
      [
        {
          location: ['body', 'questionnaireResponse', 'item', '0', 'answer', '0', 'valueCoding', 'weight'],
          errorType: 'unknown_field',
        },
      ],
    ],
    [
      'an unknown answer field',
      answers({ valueAttachment: { url: 'x' } }),
      [
        {
          location: ['body', 'questionnaireResponse', 'item', '0', 'answer', '0', 'valueAttachment'],
          errorType: 'unknown_field',
        },
        { location: ['body', 'questionnaireResponse', 'item', '0', 'answer', '0'], errorType: 'value_error' },
      ],
    ],
    [
      'a huge answer',
      answers({ valueString: huge }),
      [
        {
          location: ['body', 'questionnaireResponse', 'item', '0', 'answer', '0', 'valueString'],
          errorType: 'too_long',
        },
      ],
    ],
  ];

  it.each(cases)(
    'refuses %s with 422 at the precise location, storing nothing',
    async (_label, overrides, expected) => {
      const body: Record<string, unknown> = createBody(tenant, overrides);
      for (const [field, value] of Object.entries(overrides)) if (value === undefined) delete body[field];
      const templateSelection = body.templateSelection as Record<string, unknown> | undefined;
      if (templateSelection && typeof templateSelection === 'object') {
        for (const [field, value] of Object.entries(templateSelection))
          if (value === undefined) delete templateSelection[field];
      }
      const res = await c.create(body).expect(422);
      expect(res.body).toEqual({
        error: {
          code: 'request_validation_failed',
          message: expect.any(String),
          retryable: false,
          details: {},
          issues: expect.any(Array),
        },
        requestId: res.headers['request-id'],
      });
      for (const issue of res.body.error.issues as Issue[]) {
        expect(issue).toEqual({
          errorType: expect.any(String),
          location: expect.any(Array),
          message: expect.any(String),
        });
      }
      expect(res.body.error.issues).toEqual(expected.map((issue) => expect.objectContaining(issue)));
      await expectNothingStored();
    },
  );

  it('reports a missing key and body problems together', async () => {
    const res = await c.create(createBody(tenant, selection({ serviceType: 'x' })), null).expect(422);
    expect(res.body.error.issues.map((i: Issue) => i.location)).toEqual([
      ['headers', 'Idempotency-Key'],
      ['body', 'templateSelection', 'serviceType'],
    ]);
    await expectNothingStored();
  });

  it('refuses a body that is not a JSON object', async () => {
    for (const payload of [[], [createBody(tenant)]]) {
      const res = await c.create(payload).expect(422);
      expect(res.body.error.issues).toEqual([
        expect.objectContaining({ location: ['body'], errorType: 'type_error' }),
      ]);
    }
    await expectNothingStored();
  });

  const raw = (contentType: string | null, payload: string) => {
    const req = request(t.app)
      .post(BASE)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .set('Idempotency-Key', newKey());
    if (contentType !== null) req.set('Content-Type', contentType);
    return req.send(payload);
  };

  it('answers 400 bad_request to invalid JSON and to non-JSON content types', async () => {
    for (const payload of ['{"providerNpi": ', 'not json', '"a string"', 'null', '']) {
      const res = await raw('application/json', payload);
      if (payload === '') {
        // An empty body is no body: the request is then simply invalid.
        expect(res.status).toBe(422);
      } else {
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('bad_request');
      }
    }
    const valid = JSON.stringify(createBody(tenant));
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ]) {
      const res = await raw(contentType, valid).expect(400);
      expect(res.body.error).toMatchObject({ code: 'bad_request', retryable: false });
    }
    // Parameters and +json media types are JSON.
    await raw('application/json; charset=utf-8', valid).expect(201);
    await raw('application/merge-patch+json', valid).expect(201);
    expect(await countRows(t.dataSource, 'authorizations', tenant.organizationId)).toBe(2);
    await t.dataSource.query('DELETE FROM authorizations WHERE organization_id = $1', [
      tenant.organizationId,
    ]);
    await t.dataSource.query('DELETE FROM idempotency_records WHERE organization_id = $1', [
      tenant.organizationId,
    ]);
  });

  it('answers 413 payload_too_large to a body over the limit', async () => {
    const body = createBody(tenant, {
      questionnaireResponse: { item: [{ linkId: 'x', answer: [{ valueString: 'y'.repeat(1_100_000) }] }] },
    });
    const res = await c.create(body).expect(413);
    expect(res.body.error.code).toBe('payload_too_large');
    await expectNothingStored();
  });

  it('caps the number of items and answers', async () => {
    const many = Array.from({ length: 1_001 }, (_, i) => ({ linkId: `l${i}`, answer: [] }));
    const res = await c.create(createBody(tenant, { questionnaireResponse: { item: many } })).expect(422);
    expect(res.body.error.issues).toEqual([
      expect.objectContaining({ location: ['body', 'questionnaireResponse', 'item'], errorType: 'too_long' }),
    ]);
    await expectNothingStored();
  });

  it('validates patch, attach and confirm bodies with the same precision, before touching anything', async () => {
    const created = await c.create(createBody(tenant)).expect(201);
    const id = created.body.id;
    const patchCases: Array<[unknown, string[]]> = [
      [{}, ['body', 'questionnaireResponse']],
      [
        { questionnaireResponse: { item: [{ linkId: 'a', answer: [{ valueDate: 20200101 }] }] } },
        ['body', 'questionnaireResponse', 'item', '0', 'answer', '0', 'valueDate'],
      ],
      [{ questionnaireResponse: { item: [] }, extra: 1 }, ['body', 'extra']],
      [
        { questionnaireResponse: { item: [{ linkId: 'a'.repeat(300), answer: [] }] } },
        ['body', 'questionnaireResponse', 'item', '0', 'linkId'],
      ],
    ];
    for (const [body, location] of patchCases) {
      const res = await c.patch(id, '"1"', body).expect(422);
      expect(res.body.error.issues).toEqual([expect.objectContaining({ location })]);
    }
    const attachCases: Array<[unknown, string[]]> = [
      [{ documentTypes: ['x'] }, ['body', 'fileId']],
      [{ fileId: 'file_x' }, ['body', 'documentTypes']],
      [{ fileId: 'file_x', documentTypes: 'clinical_notes' }, ['body', 'documentTypes']],
      [{ fileId: 'file_x', documentTypes: [1] }, ['body', 'documentTypes']],
      [{ fileId: 'file_x', documentTypes: ['x'], description: 5 }, ['body', 'description']],
      [{ fileId: 'file_x', documentTypes: ['x'], description: huge }, ['body', 'description']],
      [{ fileId: 'file_x', documentTypes: ['x'], label: 'mine' }, ['body', 'label']],
    ];
    for (const [body, location] of attachCases) {
      const res = await c.attach(id, '"1"', body).expect(422);
      expect(res.body.error.issues[0].location).toEqual(location);
    }
    const confirm = await c.confirm(id, '"1"', { nextActionId: huge }).expect(422);
    expect(confirm.body.error.issues[0].location).toEqual(['body', 'nextActionId']);
    const notJson = await request(t.app)
      .patch(`${BASE}/${id}/answers`)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .set('If-Match', '"1"')
      .set('Content-Type', 'text/plain')
      .send('questionnaireResponse=1')
      .expect(400);
    expect(notJson.body.error.code).toBe('bad_request');
    const after = await c.get(id).expect(200);
    expect(after.body).toEqual(created.body);
    expect(await countRows(t.dataSource, 'idempotency_records', tenant.organizationId)).toBe(1);
    await t.dataSource.query('DELETE FROM authorizations WHERE organization_id = $1', [
      tenant.organizationId,
    ]);
    await t.dataSource.query('DELETE FROM idempotency_records WHERE organization_id = $1', [
      tenant.organizationId,
    ]);
  });

  /*
   * An element of `item` or `answer` that is not an object: a primitive, `null`, or an array (which
   * class-validator's nested validation would otherwise walk into as a nested array). Every endpoint taking a
   * questionnaireResponse refuses it with 422 at the element, and changes nothing.
   */
  describe('questionnaire response elements that are not objects', () => {
    let own: TestTenant;
    let oc: Client;
    let id: string;
    let created: request.Response;
    beforeAll(async () => {
      own = await t.createTenant();
      oc = client(t.app, own.keys.sandbox);
      created = await oc.create(createBody(own)).expect(201);
      id = created.body.id;
    });

    const LEGACY_VERSION = { 'Prior-Auth-Version': '2024-01-01' };
    const legacyAuth = () => ({ Authorization: `Bearer ${own.keys.sandbox}`, ...LEGACY_VERSION });
    const endpoints: Record<string, (questionnaireResponse: unknown) => request.Test> = {
      create: (questionnaireResponse) => oc.create(createBody(own, { questionnaireResponse })),
      'legacy create': (questionnaireResponse) =>
        request(t.app)
          .post(BASE)
          .set(legacyAuth())
          .send({ providerNpi: own.npi, templateSelection: { ...CPAP_SELECTION }, questionnaireResponse }),
      'PATCH answers': (questionnaireResponse) => oc.patch(id, '"1"', { questionnaireResponse }),
      'legacy PATCH': (questionnaireResponse) =>
        request(t.app)
          .patch(`${BASE}/${id}`)
          .set(legacyAuth())
          .set('If-Match', '"1"')
          .send({ questionnaireResponse }),
    };
    const elements: Array<[string, unknown]> = [
      ['an empty array', []],
      ['a nested array', [[]]],
      ['null', null],
      ['a number', 1],
      ['a string', 'x'],
    ];
    const shapes: Array<[string, (element: unknown) => unknown, string[]]> = [
      ['an item', (element) => ({ item: [element] }), ['item', '0']],
      [
        'an answer',
        (element) => ({ item: [{ linkId: 'patient.firstName', answer: [element] }] }),
        ['item', '0', 'answer', '0'],
      ],
      [
        'a second answer',
        (element) => ({ item: [{ linkId: 'patient.firstName', answer: [{ valueString: 'Ann' }, element] }] }),
        ['item', '0', 'answer', '1'],
      ],
    ];
    const cases = Object.keys(endpoints).flatMap((endpoint) =>
      shapes.flatMap(([shape, build, path]) =>
        elements.map(
          ([label, element]) =>
            [endpoint, shape, label, build(element), path] as [string, string, string, unknown, string[]],
        ),
      ),
    );

    it.each(cases)(
      '%s refuses %s that is %s with 422 at the element, changing nothing',
      async (endpoint, _shape, _label, questionnaireResponse, path) => {
        const res = await endpoints[endpoint]!(questionnaireResponse);
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          error: {
            code: 'request_validation_failed',
            message: expect.any(String),
            retryable: false,
            details: {},
            issues: [
              {
                errorType: 'type_error',
                location: ['body', 'questionnaireResponse', ...path],
                message: expect.any(String),
              },
            ],
          },
          requestId: res.headers['request-id'],
        });
        const after = await oc.get(id).expect(200);
        expect(after.body).toEqual(created.body);
        expect(await countRows(t.dataSource, 'authorizations', own.organizationId)).toBe(1);
        expect(await countRows(t.dataSource, 'idempotency_records', own.organizationId)).toBe(1);
      },
    );

    it('still validates the elements that are objects beside one that is not', async () => {
      const res = await oc
        .patch(id, '"1"', {
          questionnaireResponse: { item: [[], { linkId: 5, answer: [] }, { linkId: 'a', answer: [1] }] },
        })
        .expect(422);
      expect(res.body.error.issues.map((issue: Issue) => issue.location)).toEqual([
        ['body', 'questionnaireResponse', 'item', '0'],
        ['body', 'questionnaireResponse', 'item', '1', 'linkId'],
        ['body', 'questionnaireResponse', 'item', '2', 'answer', '0'],
      ]);
      expect((await oc.get(id).expect(200)).body).toEqual(created.body);
    });
  });
});
