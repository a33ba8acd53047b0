import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { listen } from '../src/http-server';
import { BASE, createBody, newKey } from './authorization-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

describe('structured request logs', () => {
  const lines: string[] = [];
  let t: TestApp;
  let tenant: TestTenant;
  beforeAll(async () => {
    t = await createTestApp({ logLines: lines });
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  it('writes one JSON line per request with id, method, route pattern, status and latency, and no PHI or key', async () => {
    const res = await request(t.app)
      .post(BASE)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .set('Idempotency-Key', newKey())
      .send(
        createBody(tenant, {
          questionnaireResponse: {
            item: [{ linkId: 'patient.lastName', answer: [{ valueString: 'Zyxwvut' }] }],
          },
        }),
      )
      .expect(201);
    await request(t.app)
      .get(`${BASE}/${res.body.id}`)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .expect(200);

    const entries = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((e) => e.msg === 'request');
    const create = entries.find((e) => e.method === 'POST');
    expect(create).toMatchObject({
      requestId: res.headers['request-id'],
      method: 'POST',
      route: '/v1/prior-auth/authorizations',
      status: 201,
      latencyMs: expect.any(Number),
      organizationId: tenant.organizationId,
      environment: 'sandbox',
    });
    const get = entries.find((e) => e.method === 'GET');
    expect(get).toMatchObject({ route: '/v1/prior-auth/authorizations/:authorizationId', status: 200 });
    const all = lines.join('\n');
    expect(all).not.toContain('Zyxwvut');
    expect(all).not.toContain(tenant.keys.sandbox);
    expect(all).not.toContain(res.body.id as string);
  });
});

describe('graceful shutdown', () => {
  let t: TestApp;
  let tenant: TestTenant;
  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  it('finishes a request already in flight, then refuses new connections', async () => {
    const running = await listen(t.app, 0, '127.0.0.1');
    const body = JSON.stringify(createBody(tenant));
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: running.port,
          method: 'POST',
          path: BASE,
          headers: {
            Authorization: `Bearer ${tenant.keys.sandbox}`,
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            'Idempotency-Key': newKey(),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      // Half the body now; the rest after shutdown has begun.
      req.write(body.slice(0, 20));
      setTimeout(() => {
        closing = running.close(5_000);
        setTimeout(() => req.end(body.slice(20)), 100);
      }, 100);
    });
    let closing: Promise<void> | undefined;

    const answered = await response;
    expect(answered.status).toBe(201);
    expect(JSON.parse(answered.body)).toMatchObject({ version: 1 });
    await closing;
    await expect(
      new Promise((resolve, reject) => {
        const probe = httpRequest(
          { host: '127.0.0.1', port: running.port, path: '/health', agent: false },
          resolve,
        );
        probe.on('error', reject);
        probe.end();
      }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
