import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createTestApp, type TestApp } from './test-app';

describe('probes, metrics and request ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers /livez and /readyz without a key', async () => {
    expect((await request(t.app).get('/livez').expect(200)).body).toEqual({ status: 'ok' });
    expect((await request(t.app).get('/readyz').expect(200)).body).toEqual({
      status: 'ready',
      checks: { database: 'up', migrations: 'current' },
    });
  });

  it('is live but not ready when its database is gone, and /health still answers', async () => {
    const gone = await createTestApp();
    try {
      await gone.dataSource.destroy();
      await request(gone.app).get('/livez').expect(200);
      const ready = await request(gone.app).get('/readyz').expect(503);
      expect(ready.body).toEqual({
        status: 'not_ready',
        checks: { database: 'down', migrations: 'unknown' },
      });
      expect(ready.headers['retry-after']).toBe('1');
      await request(gone.app).get('/health').expect(503);
    } finally {
      await gone.dataSource.initialize();
      await gone.close();
    }
  });

  it('counts requests by route pattern and status on /metrics', async () => {
    const tenant = await t.createTenant();
    await request(t.app).get('/v1/payers').set('Authorization', `Bearer ${tenant.keys.sandbox}`).expect(200);
    await request(t.app).get('/v1/payers').expect(401);
    const missing = `aut_${randomUUID().replace(/-/g, '')}`;
    await request(t.app)
      .get(`/v1/prior-auth/authorizations/${missing}`)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .expect(404);

    const res = await request(t.app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const count = (labels: string) => {
      const line = res.text
        .split('\n')
        .find((l) => l.startsWith(`prior_auth_http_request_duration_seconds_count{${labels}}`));
      return line === undefined ? 0 : Number(line.split(' ').pop());
    };
    expect(count('method="GET",route="/v1/payers",status="200"')).toBeGreaterThanOrEqual(1);
    expect(count('method="GET",route="unmatched",status="401"')).toBeGreaterThanOrEqual(1);
    // The pattern, never the id in the path.
    expect(
      count('method="GET",route="/v1/prior-auth/authorizations/:authorizationId",status="404"'),
    ).toBeGreaterThanOrEqual(1);
    expect(res.text).not.toContain(missing);
    expect(res.text).toContain('prior_auth_api_process_resident_memory_bytes');
  });

  it('keeps a well-formed X-Request-Id as the request id and replaces any other', async () => {
    const incoming = randomUUID();
    const kept = await request(t.app).get('/v1/payers').set('X-Request-Id', incoming).expect(401);
    expect(kept.headers['request-id']).toBe(incoming);
    expect(kept.body.requestId).toBe(incoming);
    for (const bad of ['short', 'has spaces in it', 'x'.repeat(129), '<script>alert(1)</script>']) {
      const replaced = await request(t.app).get('/livez').set('X-Request-Id', bad).expect(200);
      expect(replaced.headers['request-id']).toMatch(/^req_/);
    }
  });
});
