import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pacedLoad, pacedLoadApart, percentile, planned, type PacedLoadResult } from './paced-load';

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

/** A real HTTP server on a free port that records when each request arrived. */
async function serve(handler: Handler): Promise<{ origin: string; arrivals: number[]; server: Server }> {
  const arrivals: number[] = [];
  const server = createServer((request, response) => {
    arrivals.push(performance.now());
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => handler(request, response, body));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, arrivals, server };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** A server that answers 201 and keeps what each request sent. */
async function recording() {
  const received: Array<{ method?: string; url?: string; key?: string; body: string }> = [];
  const served = await serve((request, response, body) => {
    received.push({
      method: request.method,
      url: request.url,
      key: request.headers['idempotency-key'] as string | undefined,
      body,
    });
    response.statusCode = 201;
    response.end('{}');
  });
  servers.push(served.server);
  return { ...served, received };
}

describe('pacedLoad', () => {
  it('sends requests spread evenly over the pass, not as many as possible at once', async () => {
    const { origin, arrivals, server } = await serve((_request, response) => response.end('{}'));
    servers.push(server);

    const before = performance.now();
    const result = await pacedLoad({
      origin,
      rate: 200,
      durationS: 1,
      connections: 20,
      next: () => ({ method: 'GET', path: '/' }),
    });

    expect(result.sent).toBe(200);
    expect(result.errors).toBe(0);
    expect(result.statuses.get(200)).toBe(200);
    // 200 a second is 20 per 100 ms. A client that sends as fast as it is answered would send them all
    // within the first tens of milliseconds; a timer held up on a busy machine bunches some, never half.
    const first = arrivals[0]!;
    const perWindow = new Map<number, number>();
    for (const arrival of arrivals) {
      const window = Math.floor((arrival - first) / 100);
      perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
    }
    expect(Math.max(...perWindow.values())).toBeLessThan(100);
    // No request goes before it is due, however late the first ones were: the last was due 995 ms in.
    expect(arrivals[arrivals.length - 1]! - before).toBeGreaterThanOrEqual(995);
  });

  it('counts latency from when each request was due, so waiting for a busy connection counts', async () => {
    // Every answer takes 40 ms and there is one connection, so requests due every 10 ms queue up behind it.
    const { origin, server } = await serve((_request, response) => setTimeout(() => response.end('{}'), 40));
    servers.push(server);

    const result = await pacedLoad({
      origin,
      rate: 100,
      durationS: 0.3,
      connections: 1,
      next: () => ({ method: 'GET', path: '/' }),
    });

    expect(result.sent).toBe(30);
    expect(result.errors).toBe(0);
    // The last request was due at 290 ms and answered after all 30 answers, at 1,200 ms or later: about
    // 900 ms late. Measured from when it was sent it would be about 40 ms.
    expect(result.max).toBeGreaterThan(800);
    expect(result.p50).toBeGreaterThan(300);
    // Answers a second follow the single connection, not the requested rate.
    expect(result.requestsPerSecond).toBeLessThan(30);
    // In the order they were due, each request waited behind all earlier ones: the last waited longest.
    expect(result.byDue).toHaveLength(30);
    expect(result.byDue[29]).toBe(result.max);
    expect(result.byDue[0]!).toBeLessThan(200);
    expect(result.byDue[15]!).toBeGreaterThan(result.byDue[0]!);
  });

  it('sends the lead-in at the same pace but counts only the latencies after it, and every error', async () => {
    // The first 20 requests (the lead-in at 100 a second for 0.2 s) are answered after 300 ms, the first of
    // them with a 503; the 30 after them at once, each on a connection of its own.
    let count = 0;
    const { origin, arrivals, server } = await serve((_request, response) => {
      count += 1;
      const slow = count <= 20;
      response.statusCode = count === 1 ? 503 : 200;
      setTimeout(() => response.end('{}'), slow ? 300 : 0);
    });
    servers.push(server);

    const before = performance.now();
    const result = await pacedLoad({
      origin,
      rate: 100,
      leadInS: 0.2,
      durationS: 0.3,
      connections: 50,
      next: () => ({ method: 'GET', path: '/' }),
    });

    expect(result.sent).toBe(50);
    expect(result.leadIn).toBe(20);
    expect(arrivals).toHaveLength(50);
    // One pace throughout: the lead-in's 20 requests were sent over 190 ms, not in a burst. Twenty had arrived
    // only once one due at least 190 ms in had (a lower bound, so a slow machine cannot break it).
    expect(arrivals[19]! - before).toBeGreaterThanOrEqual(190);
    expect(result.errors).toBe(1);
    expect(Object.fromEntries(result.statuses)).toEqual({ 200: 49, 503: 1 });
    expect(result.byDue).toHaveLength(50);
    expect(Math.min(...result.byDue.subarray(0, 20))).toBeGreaterThanOrEqual(300);
    // The measured requests were answered at once: none of the lead-in's 300 ms is in the percentiles.
    expect(result.max).toBeLessThan(300);
    expect(result.max).toBe(Math.max(...result.byDue.subarray(20)));
  });

  it('sends each request the next callback gives, with its body and headers', async () => {
    const { origin, received } = await recording();
    let counter = 0;

    const result = await pacedLoad({
      origin,
      rate: 100,
      durationS: 0.05,
      connections: 2,
      next: () => {
        counter += 1;
        return {
          method: 'POST',
          path: `/things?n=${counter}`,
          headers: { 'content-type': 'application/json', 'idempotency-key': `key-${counter}` },
          body: JSON.stringify({ n: counter, text: 'é' }),
        };
      },
    });

    expect(result.sent).toBe(5);
    expect(result.statuses.get(201)).toBe(5);
    expect(received.sort((a, b) => a.url!.localeCompare(b.url!))).toEqual(
      [1, 2, 3, 4, 5].map((n) => ({
        method: 'POST',
        url: `/things?n=${n}`,
        key: `key-${n}`,
        body: JSON.stringify({ n, text: 'é' }),
      })),
    );
  });

  it('counts other statuses and requests without an answer as errors, by status', async () => {
    let count = 0;
    const { origin, server } = await serve((_request, response) => {
      count += 1;
      if (count % 3 === 0) {
        response.socket?.destroy();
        return;
      }
      response.statusCode = count % 3 === 1 ? 200 : 503;
      response.end('{}');
    });
    servers.push(server);

    const result = await pacedLoad({
      origin,
      rate: 100,
      durationS: 0.09,
      connections: 3,
      next: () => ({ method: 'GET', path: '/' }),
    });

    expect(result.sent).toBe(9);
    expect(Object.fromEntries(result.statuses)).toEqual({ 0: 3, 200: 3, 503: 3 });
    expect(Object.fromEntries(result.failures)).toEqual({ ECONNRESET: 3 });
    expect(result.errors).toBe(6);
  });

  it("closes an idle connection before the server's keep-alive hint says the server will", async () => {
    const { origin, server } = await serve((_request, response) => response.end('{}'));
    servers.push(server);
    // The server announces `Keep-Alive: timeout=3`; the agent should give the connection up after 2 s idle.
    server.keepAliveTimeout = 3_000;
    const connections: Array<{ endedByClient: boolean }> = [];
    server.on('connection', (socket) => {
      const connection = { endedByClient: false };
      connections.push(connection);
      socket.on('end', () => (connection.endedByClient = true));
    });

    // Two requests 2.5 s apart: between the agent's 2 s and the server's 3 s.
    const result = await pacedLoad({
      origin,
      rate: 0.4,
      durationS: 5,
      connections: 1,
      next: () => ({ method: 'GET', path: '/' }),
    });

    expect(result.sent).toBe(2);
    expect(result.errors).toBe(0);
    expect(connections).toHaveLength(2);
    expect(connections[0]!.endedByClient).toBe(true);
  });

  it('gives up on a request that is not answered in time, as an error', async () => {
    const { origin, server } = await serve(() => undefined);
    servers.push(server);

    const result = await pacedLoad({
      origin,
      rate: 10,
      durationS: 0.2,
      connections: 2,
      timeoutMs: 200,
      next: () => ({ method: 'GET', path: '/' }),
    });

    expect(result.sent).toBe(2);
    expect(result.statuses.get(0)).toBe(2);
    expect(Object.fromEntries(result.failures)).toEqual({ timeout: 2 });
    expect(result.errors).toBe(2);
    expect(result.max).toBeGreaterThanOrEqual(200);
  });
});

describe('planned', () => {
  it('takes the paths in turn and gives the unique header a value no other request has', () => {
    const next = planned({
      method: 'POST',
      paths: ['/a', '/b'],
      headers: { 'content-type': 'application/json' },
      body: '{}',
      uniqueHeader: { name: 'Idempotency-Key', prefix: 'pass-1' },
    });

    const requests = [next(), next(), next()];

    expect(requests).toEqual(
      [0, 1, 2].map((n) => ({
        method: 'POST',
        path: n % 2 === 0 ? '/a' : '/b',
        headers: { 'content-type': 'application/json', 'Idempotency-Key': `pass-1-${n}` },
        body: '{}',
      })),
    );
  });

  it('sends the same headers to every request without a unique one', () => {
    const headers = { authorization: 'Bearer x' };
    const next = planned({ method: 'GET', paths: ['/only'], headers });

    expect([next(), next()]).toEqual([
      { method: 'GET', path: '/only', headers, body: undefined },
      { method: 'GET', path: '/only', headers, body: undefined },
    ]);
  });
});

describe('pacedLoadApart', () => {
  const plan = {
    method: 'POST',
    paths: ['/things/1', '/things/2'],
    headers: { 'content-type': 'application/json' },
    body: '{"n":1}',
    uniqueHeader: { name: 'idempotency-key', prefix: 'apart' },
  };
  const pass = { rate: 100, leadInS: 0.05, durationS: 0.6, connections: 4 };

  /** Runs `load` against a real server and blocks this thread for 400 ms once the first request arrived. */
  async function blockedDuring(load: (origin: string) => Promise<PacedLoadResult>) {
    const { origin, arrivals, received } = await recording();
    const asked = Date.now();
    const running = load(origin);
    while (arrivals.length === 0) await new Promise((done) => setTimeout(done, 1));
    const blockedFrom = performance.now();
    while (performance.now() - blockedFrom < 400) {
      // Busy on purpose: nothing else runs on this thread meanwhile.
    }
    return { result: await running, received, asked };
  }

  it('sends on time from a thread of its own while the calling thread is blocked', async () => {
    const { result, received, asked } = await blockedDuring((origin) =>
      pacedLoadApart({ origin, ...pass, plan }),
    );

    expect(result.sent).toBe(65);
    expect(result.leadIn).toBe(5);
    expect(result.errors).toBe(0);
    expect(result.statuses).toEqual(new Map([[201, 65]]));
    expect(result.byDue).toHaveLength(65);
    // About 40 requests fell due while this thread was blocked; sent from here they would have left up to
    // 400 ms late (the next test). The server answered them only afterwards, so their latencies do show it.
    expect(result.lateMax).toBeLessThan(200);
    // Its start is the thread's, once loaded: no earlier than the call, and stamped as a wall-clock time.
    expect(result.startedAt).toBeGreaterThanOrEqual(asked);
    expect(result.startedAt).toBeLessThanOrEqual(Date.now());
    expect(result.max).toBeGreaterThan(200);
    expect(received.map((request) => request.key).sort()).toEqual(
      Array.from({ length: 65 }, (_, n) => `apart-${n}`).sort(),
    );
    expect(received.filter((request) => request.url === '/things/1')).toHaveLength(33);
    expect(received.every((request) => request.body === '{"n":1}')).toBe(true);
  });

  it('is what keeps the sends on time: the same pass on the calling thread sends late while it is blocked', async () => {
    const { result } = await blockedDuring((origin) => pacedLoad({ origin, ...pass, next: planned(plan) }));

    expect(result.sent).toBe(65);
    expect(result.lateMax).toBeGreaterThan(250);
    // Each request's own lateness, in the order they were due: the worst of those measured is the pass's.
    expect(result.lateByDue).toHaveLength(65);
    expect(Math.max(...result.lateByDue.subarray(result.leadIn))).toBe(result.lateMax);
  });
});

describe('percentile', () => {
  it.each([
    [0.5, 50],
    [0.99, 99],
    [1, 100],
    [0, 1],
  ])('gives the nearest-rank %p percentile of 1..100: %p', (q, expected) => {
    expect(
      percentile(
        Float64Array.from({ length: 100 }, (_, i) => i + 1),
        q,
      ),
    ).toBe(expected);
  });

  it('is NaN with no values', () => {
    expect(percentile(new Float64Array(0), 0.99)).toBeNaN();
  });
});
