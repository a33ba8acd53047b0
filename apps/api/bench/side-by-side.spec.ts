import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cannonRound, joinRounds, roundOrder } from './side-by-side';

describe('roundOrder', () => {
  it('runs each target once a round, swapping the order every round', () => {
    expect(roundOrder(['api', 'floor'], 4)).toEqual([
      'floor',
      'api',
      'api',
      'floor',
      'floor',
      'api',
      'api',
      'floor',
    ]);
  });

  it('runs a lone target every round', () => {
    expect(roundOrder(['api'], 3)).toEqual(['api', 'api', 'api']);
  });

  it('leaves the targets it was given as they were', () => {
    const targets = ['api', 'floor'] as const;
    roundOrder(targets, 2);
    expect(targets).toEqual(['api', 'floor']);
  });
});

describe('joinRounds', () => {
  let server: Server;
  let url: string;
  let answered = 0;

  beforeAll(async () => {
    // A real server answering every third request 503, so the joined counts can be checked by status.
    server = createServer((_request, response) => {
      answered += 1;
      response.statusCode = answered % 3 === 0 ? 503 : 200;
      response.end('{}');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((done) => server.close(done)));

  it("adds up the rounds' requests, statuses, latencies and seconds", async () => {
    const before = answered;
    const first = await cannonRound(url, [{ method: 'GET', path: '/' }], 4, 0.3);
    const second = await cannonRound(url, [{ method: 'GET', path: '/' }], 4, 0.3);
    const sent = answered - before;

    const { result, seconds } = joinRounds([first, second], url, 4);

    const completed = (round: { result: unknown }) =>
      (round.result as { totalCompletedRequests: number }).totalCompletedRequests;
    expect(completed(first)).toBeGreaterThan(0);
    expect(completed(second)).toBeGreaterThan(0);
    expect(result.requests.total).toBe(completed(first) + completed(second));
    // What the server answered in the two rounds, but for those still in flight as each round stopped.
    expect(result.requests.total).toBeLessThanOrEqual(sent);
    expect(result.requests.total).toBeGreaterThanOrEqual(sent - 2 * 4);
    expect((result.latency as unknown as { totalCount: number }).totalCount).toBe(result.requests.total);
    const byStatus = result.statusCodeStats as Record<string, { count: number }>;
    expect(byStatus['200']!.count + byStatus['503']!.count).toBe(result.requests.total);
    expect(result.non2xx).toBe(byStatus['503']!.count);
    expect(result.latency.p99).toBeGreaterThanOrEqual(result.latency.p50);
    expect(seconds).toBeCloseTo(first.seconds + second.seconds, 5);
    expect(seconds).toBeGreaterThanOrEqual(0.6);
  });
});
