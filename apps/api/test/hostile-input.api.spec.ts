import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import request from 'supertest';
import { listen, type RunningServer } from '../src/http-server';
import { BASE, client, createBody, newKey, type Client } from './authorization-helpers';
import { prototypeSnapshot } from './support/prototype-snapshot';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

const expectValidationIssueAt = (res: request.Response, location: string[]) => {
  expect(res.status).toBe(422);
  expect(res.body.error).toMatchObject({ code: 'request_validation_failed', retryable: false });
  expect(res.body.error.issues).toContainEqual(expect.objectContaining({ location }));
};

describe('hostile input', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let auth: { Authorization: string };
  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant();
    auth = { Authorization: `Bearer ${tenant.keys.sandbox}` };
  });
  afterAll(() => t.close());

  describe('prototype keys in bodies', () => {
    it.each([BASE, '/v1/files'])(
      'refuses {"providerNpi":{"constructor":{"prototype":{}}}} on POST %s with 422 at its location',
      async (path) => {
        const res = await request(t.app)
          .post(path)
          .set(auth)
          .set('Idempotency-Key', newKey())
          .set('Content-Type', 'application/json')
          .send('{"providerNpi":{"constructor":{"prototype":{}}}}');
        expectValidationIssueAt(res, ['body', 'providerNpi', 'constructor']);
      },
    );

    it('refuses __proto__, constructor and prototype keys anywhere, and Object.prototype stays untouched', async () => {
      const before = prototypeSnapshot();
      const valid = JSON.stringify(createBody(tenant));
      const hostile = [
        `{"__proto__":{"polluted":"yes"},${valid.slice(1)}`,
        `{"constructor":{"prototype":{"polluted":"yes"}},${valid.slice(1)}`,
        `{"templateSelection":{"__proto__":{"polluted":"yes"},"payerId":"payer_uhc"}}`,
        `{"questionnaireResponse":{"item":[{"linkId":"a","answer":[{"prototype":{"polluted":"yes"}}]}]}}`,
      ];
      const locations = [
        ['body', '__proto__'],
        ['body', 'constructor'],
        ['body', 'templateSelection', '__proto__'],
        ['body', 'questionnaireResponse', 'item', '0', 'answer', '0', 'prototype'],
      ];
      for (const [index, body] of hostile.entries()) {
        const res = await request(t.app)
          .post(BASE)
          .set(auth)
          .set('Idempotency-Key', newKey())
          .set('Content-Type', 'application/json')
          .send(body);
        expectValidationIssueAt(res, locations[index]!);
      }
      expect(prototypeSnapshot()).toEqual(before);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      // The API still answers a valid request normally afterwards.
      await request(t.app)
        .post(BASE)
        .set(auth)
        .set('Idempotency-Key', newKey())
        .send(createBody(tenant))
        .expect(201);
    });

    it('refuses a body nested deeper than the cap with 422, without exhausting the stack', async () => {
      const depth = 100_000;
      const res = await request(t.app)
        .post(BASE)
        .set(auth)
        .set('Idempotency-Key', newKey())
        .set('Content-Type', 'application/json')
        .send(`{"providerNpi":${'['.repeat(depth)}${']'.repeat(depth)}}`);
      expect(res.status).toBe(422);
      expect(res.body.error.issues[0].errorType).toBe('value_error');
    });

    it('asks for authentication before looking at the body (decision 0012: 401 first)', async () => {
      await request(t.app)
        .post(BASE)
        .set('Content-Type', 'application/json')
        .send('{"__proto__":{}}')
        .expect(401);
    });
  });

  describe('NUL bytes and invalid UTF-8 in paths and queries', () => {
    // Without an API key: a 404 or 422 instead of the 401 proves the refusal came before authentication,
    // whose key lookup is the first database read of every /v1 request.
    it.each(['/v1/payers/%00', '/v1/payers/%C0%AF', '/v1/files/a%00b', `${BASE}/%FF`, '/v1/%E2%82'])(
      'answers GET %s with 404 not_found before any database read',
      async (path) => {
        const res = await request(t.app).get(path).expect(404);
        expect(res.body.error.code).toBe('not_found');
        expect(JSON.stringify(res.body)).not.toContain('\\u0000');
      },
    );

    it.each([
      ['/v1/payers?q=%00', ['query', 'q']],
      ['/v1/payers?q=%C0%AF', ['query', 'q']],
      ['/v1/payers?state=C%00A&limit=2', ['query', 'state']],
      ['/v1/payers?%00=x', ['query']],
      ['/v1/payers?__proto__=x', ['query', '__proto__']],
      ['/v1/payers?constructor=x', ['query', 'constructor']],
    ])('answers GET %s with 422 at %j', async (path, location) => {
      expectValidationIssueAt(await request(t.app).get(path), location);
    });

    it('still serves the same requests with clean values', async () => {
      await request(t.app).get('/v1/payers?q=aetna').set(auth).expect(200);
      await request(t.app).get('/v1/payers/payer_unknown').set(auth).expect(404);
    });
  });

  describe('NUL characters and unpaired surrogates in body strings', () => {
    // PostgreSQL stores neither: NUL is refused by text and jsonb alike, a lone surrogate has no UTF-8 form.
    // Written as JSON escapes in raw bodies, exactly as a client would send them.
    const UNSTORABLE = [
      ['NUL', '\\u0000'],
      ['a lone high surrogate', '\\ud800'],
      ['a lone low surrogate', '\\udc00'],
    ] as const;
    const answersWith = (answer: string) =>
      `{"questionnaireResponse":{"item":[{"linkId":"patient.firstName","answer":[${answer}]}]}}`;
    const ANSWER_AT = ['body', 'questionnaireResponse', 'item', '0', 'answer', '0'];

    let c: Client;
    let authorizationId: string;
    let webhookEndpointId: string;
    beforeAll(async () => {
      c = client(t.app, tenant.keys.sandbox);
      authorizationId = (await c.create(createBody(tenant)).expect(201)).body.id;
      webhookEndpointId = (
        await request(t.app)
          .post('/v1/webhook-endpoints')
          .set(auth)
          .send({ url: 'http://localhost:9999/hooks', enabledEvents: ['*'], description: 'receiver' })
          .expect(201)
      ).body.id;
    });

    type Case = {
      method: 'post' | 'patch';
      path: () => string;
      ifMatch?: string;
      body: string | (() => string);
      at: string[];
    };
    const cases = UNSTORABLE.flatMap(([what, escape]): Array<[string, Case]> => [
      [
        `${what} in an answer value`,
        {
          method: 'patch',
          path: () => `${BASE}/${authorizationId}/answers`,
          ifMatch: '"1"',
          body: answersWith(`{"valueString":"a${escape}b"}`),
          at: [...ANSWER_AT, 'valueString'],
        },
      ],
      [
        `${what} in an answer's key name`,
        {
          method: 'patch',
          path: () => `${BASE}/${authorizationId}/answers`,
          ifMatch: '"1"',
          body: answersWith(`{"valueString":"a","value${escape}String":"b"}`),
          at: ANSWER_AT,
        },
      ],
      [
        `${what} in a file name`,
        {
          method: 'post',
          path: () => '/v1/files',
          body: `{"fileName":"a${escape}.pdf","contentType":"application/pdf","sizeBytes":10,"purpose":"authorization_attachment"}`,
          at: ['body', 'fileName'],
        },
      ],
      [
        `${what} in a webhook endpoint's url`,
        {
          method: 'post',
          path: () => '/v1/webhook-endpoints',
          body: `{"url":"http://localhost:9999/a${escape}b","enabledEvents":["*"]}`,
          at: ['body', 'url'],
        },
      ],
      [
        `${what} in a webhook endpoint's events (an array)`,
        {
          method: 'post',
          path: () => '/v1/webhook-endpoints',
          body: `{"url":"http://localhost:9999/hooks","enabledEvents":["authorization.created${escape}"]}`,
          at: ['body', 'enabledEvents', '0'],
        },
      ],
      [
        `${what} in a webhook endpoint's new description`,
        {
          method: 'patch',
          path: () => `/v1/webhook-endpoints/${webhookEndpointId}`,
          ifMatch: '"1"',
          body: `{"description":"${escape}"}`,
          at: ['body', 'description'],
        },
      ],
      [
        `${what} in a payer id`,
        {
          method: 'post',
          path: () => BASE,
          body: () => JSON.stringify(createBody(tenant)).replace('"payer_uhc"', `"payer_uhc${escape}"`),
          at: ['body', 'templateSelection', 'payerId'],
        },
      ],
      [
        `${what} in an attachment's file id`,
        {
          method: 'post',
          path: () => `${BASE}/${authorizationId}/attachments`,
          ifMatch: '"1"',
          body: `{"fileId":"a${escape}b","documentTypes":["clinical_notes"]}`,
          at: ['body', 'fileId'],
        },
      ],
    ]);

    it.each(cases)('refuses %s with 422 at its location, before the database', async (_name, input) => {
      const req = request(t.app)[input.method](input.path()).set(auth).set('Idempotency-Key', newKey());
      if (input.ifMatch !== undefined) req.set('If-Match', input.ifMatch);
      const body = typeof input.body === 'string' ? input.body : input.body();
      const res = await req.set('Content-Type', 'application/json').send(body);
      expectValidationIssueAt(res, input.at);
      expect(res.body.error.issues).toContainEqual({
        errorType: 'value_error',
        location: input.at,
        message: expect.stringMatching(/must not contain NUL characters or unpaired surrogates/),
      });
      // Nothing unstorable is echoed back.
      expect(JSON.stringify(res.body)).not.toMatch(/\\u0000|\\ud[89a-f]/i);
      // The resources those requests would have changed are as they were.
      expect((await c.get(authorizationId).expect(200)).body).toMatchObject({ version: 1, attachments: [] });
      const endpoint = await request(t.app).get(`/v1/webhook-endpoints/${webhookEndpointId}`).set(auth);
      expect(endpoint.body).toMatchObject({ version: 1, description: 'receiver' });
    });

    it('stores and returns valid surrogate pairs and the control characters PostgreSQL accepts', async () => {
      const id = (await c.create(createBody(tenant)).expect(201)).body.id;
      const values = ['😀', '\ud83d\ude00 smile', 'tab\there', 'new\nline', 'start\u0001of heading'];
      for (const [index, value] of values.entries()) {
        const saved = await c
          .patch(id, `"${index + 1}"`, {
            questionnaireResponse: {
              item: [{ linkId: 'patient.firstName', answer: [{ valueString: value }] }],
            },
          })
          .expect(200);
        const read = await c.get(id).expect(200);
        for (const body of [saved.body, read.body]) {
          const item = body.questionnaireResponse.item.find(
            (i: { linkId: string }) => i.linkId === 'patient.firstName',
          );
          expect(item.answer).toEqual([{ valueString: value }]);
        }
      }
      // The same escapes written in a raw body, as the refused requests were.
      await request(t.app)
        .patch(`${BASE}/${id}/answers`)
        .set(auth)
        .set('If-Match', `"${values.length + 1}"`)
        .set('Content-Type', 'application/json')
        .send(answersWith('{"valueString":"\\ud83d\\ude00\\u0001\\t"}'))
        .expect(200);
      const item = (await c.get(id).expect(200)).body.questionnaireResponse.item.find(
        (i: { linkId: string }) => i.linkId === 'patient.firstName',
      );
      expect(item.answer).toEqual([{ valueString: '😀\u0001\t' }]);
    });
  });

  describe('requests Node refuses before routing', () => {
    let running: RunningServer;
    beforeAll(async () => {
      running = await listen(t.api, 0, '127.0.0.1');
    });
    afterAll(() => running.close(1_000));

    const rawExchange = (payload: string) =>
      new Promise<string>((resolve, reject) => {
        // Written, not ended: the server answers, then closes the connection itself.
        const socket = connect(running.port, '127.0.0.1', () => socket.write(payload));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });

    const parseRaw = (text: string) => {
      const [head, body] = text.split('\r\n\r\n');
      return { statusLine: head!.split('\r\n')[0], head: head!, body: JSON.parse(body!) };
    };

    it('answers oversized headers with 431 in the error envelope', async () => {
      const answer = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
        (resolve, reject) => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port: running.port,
              path: '/health',
              headers: { 'X-Padding': 'x'.repeat(64 * 1024) },
            },
            (res) => {
              let text = '';
              res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
            },
          );
          req.on('error', reject);
          req.end();
        },
      );
      expect(answer.status).toBe(431);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(answer.body);
      expect(body).toEqual({
        error: {
          code: 'headers_too_large',
          message: expect.any(String),
          retryable: false,
          details: {},
          issues: [],
        },
        requestId: answer.headers['request-id'],
      });
    });

    it('answers a request that is not HTTP with 400 bad_request in the envelope', async () => {
      const { statusLine, head, body } = parseRaw(await rawExchange('GET /health HTTP/1.1\r\nHost\r\n\r\n'));
      expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
      expect(head).toMatch(/\r\nRequest-Id: req_/);
      expect(body.error.code).toBe('bad_request');
    });

    it('keeps serving afterwards', async () => {
      const { statusLine } = parseRaw(
        await rawExchange('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      expect(statusLine).toBe('HTTP/1.1 200 OK');
    });
  });
});
