import { randomInt } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { listen, type RunningServer } from '../src/http-server';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * Decision 24 of the spec's binding decisions and docs/decisions/0035-rate-limits-cors-read-audit-and-keys.md:
 * a key's budget and the per-address limit on requests without a valid key hold across API processes. Two app
 * instances on their own connection pools and HTTP servers stand for two processes: the counters they share
 * are in the database, as between real processes.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { error?: { code: string; retryable: boolean; details: Record<string, unknown> } };
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One GET from `localAddress` (a loopback address of the test's own, so its address counter is its own). */
function get(
  server: RunningServer,
  path: string,
  key: string | undefined,
  localAddress = '127.0.0.1',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: 'GET',
        localAddress,
        // A pooled socket is bound to the address it was opened from: one agent per address would do, but
        // only the default address needs the pool's speed.
        agent: localAddress === '127.0.0.1' ? agent : false,
        headers: key ? { Authorization: `Bearer ${key}` } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A loopback address no other test uses (the per-address counter is shared by every file of the run). */
const ownLoopbackAddress = () => `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;

const SCENARIOS = '/v1/sandbox/scenarios';

function expectRateLimited(answer: Answer): void {
  expect(answer.status).toBe(429);
  expect(answer.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  expect(answer.body.error).toEqual(
    expect.objectContaining({ code: 'rate_limited', retryable: true, details: expect.any(Object) }),
  );
}

describe('rate limits (decision 24, decision 0035)', () => {
  // A tenth of the default budget (100 a second, burst 200): on a loaded two-core machine 300 requests through
  // two processes can take two seconds, within which the default budget would admit them all.
  const PER_SECOND = 10;
  const BURST = 20;
  describe(`with a budget of ${PER_SECOND} requests per second, burst ${BURST}`, () => {
    let first: TestApp;
    let second: TestApp;
    let servers: RunningServer[];
    let tenant: TestTenant;
    beforeAll(async () => {
      const env = { RATE_LIMIT_PER_SECOND: String(PER_SECOND), RATE_LIMIT_BURST: String(BURST) };
      first = await createTestApp({ env });
      second = await createTestApp({ env });
      // The APIs themselves: checking 300 answers against the OpenAPI document would take longer than the
      // second they must arrive in (the 429s are checked against it below, in the address limit's tests).
      servers = [await listen(first.api, 0, '127.0.0.1'), await listen(second.api, 0, '127.0.0.1')];
      tenant = await first.createTenant();
      // Connections opened and statements prepared before the clock starts, on a key of its own.
      const warmUp = await first.createTenant();
      await Promise.all(
        Array.from({ length: 2 * BURST }, (_, i) => get(servers[i % 2]!, SCENARIOS, warmUp.keys.sandbox)),
      );
    });
    afterAll(async () => {
      agent.destroy();
      for (const server of servers ?? []) await server.close(1_000);
      await first?.close();
      await second?.close();
    });

    it('answers a flood of 300 requests on one key through two processes with 429s and Retry-After', async () => {
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, i) => get(servers[i % 2]!, SCENARIOS, tenant.keys.sandbox)),
      );
      const elapsedMs = Date.now() - started;
      const ok = answers.filter((answer) => answer.status === 200);
      const limited = answers.filter((answer) => answer.status === 429);
      expect(ok.length + limited.length).toBe(300);
      // Both processes refused some: the budget is the key's, not each process's.
      expect(answers.filter((answer, i) => i % 2 === 0 && answer.status === 429).length).toBeGreaterThan(0);
      expect(answers.filter((answer, i) => i % 2 === 1 && answer.status === 429).length).toBeGreaterThan(0);
      // At most one budget per (started) second window the requests spanned, plus the burst allowance.
      expect(ok.length).toBeLessThanOrEqual(
        PER_SECOND * (Math.ceil(elapsedMs / 1000) + 1) + BURST - PER_SECOND,
      );
      expect(ok.length).toBeGreaterThanOrEqual(BURST);
      for (const answer of limited) expectRateLimited(answer);
      for (const answer of answers) {
        expect(answer.headers['ratelimit-limit']).toBe(String(PER_SECOND));
        expect(answer.headers['ratelimit-remaining']).toMatch(/^[0-9]+$/);
        expect(answer.headers['ratelimit-reset']).toMatch(/^[1-9][0-9]*$/);
      }
    });

    it('counts each key on its own', async () => {
      const other = await first.createTenant();
      const answer = await get(servers[1]!, SCENARIOS, other.keys.sandbox);
      expect(answer.status).toBe(200);
      expect(Number(answer.headers['ratelimit-remaining'])).toBe(PER_SECOND - 1);
    });
  });

  describe('requests without a valid key, per client address', () => {
    const LIMIT = 5;
    let first: TestApp;
    let second: TestApp;
    let servers: RunningServer[];
    beforeAll(async () => {
      const env = { AUTH_FAILURES_PER_MINUTE: String(LIMIT) };
      first = await createTestApp({ env });
      second = await createTestApp({ env });
      servers = [await listen(first.app, 0, '127.0.0.1'), await listen(second.app, 0, '127.0.0.1')];
    });
    afterAll(async () => {
      for (const server of servers ?? []) await server.close(1_000);
      await first?.close();
      await second?.close();
    });

    it('refuses an address over its limit in every process, whatever key it then sends', async () => {
      const tenant = await first.createTenant();
      const address = ownLoopbackAddress();
      const bad = 'pa_sandbox_0000000000000000000000000000000000000000';
      // The limit is shared: failures through either process count.
      for (let i = 0; i < LIMIT; i += 1) {
        const answer = await get(servers[i % 2]!, SCENARIOS, i % 3 === 0 ? undefined : bad, address);
        expect(answer.status).toBe(401);
      }
      expectRateLimited(await get(servers[0]!, SCENARIOS, bad, address));
      // The other process learns it from the shared counter on the address's next failure there.
      expectRateLimited(await get(servers[1]!, SCENARIOS, bad, address));
      // A blocked address is refused before its key is looked at, so guessing keys gains nothing.
      expectRateLimited(await get(servers[0]!, SCENARIOS, tenant.keys.sandbox, address));
      // Other addresses are not affected.
      expect((await get(servers[0]!, SCENARIOS, tenant.keys.sandbox, ownLoopbackAddress())).status).toBe(200);
      expect((await get(servers[1]!, SCENARIOS, bad, ownLoopbackAddress())).status).toBe(401);
    });

    it('does not count requests with a valid key', async () => {
      const tenant = await first.createTenant();
      const address = ownLoopbackAddress();
      for (let i = 0; i < LIMIT * 2; i += 1) {
        expect((await get(servers[i % 2]!, SCENARIOS, tenant.keys.sandbox, address)).status).toBe(200);
      }
      expect((await get(servers[0]!, SCENARIOS, undefined, address)).status).toBe(401);
    });
  });
});
