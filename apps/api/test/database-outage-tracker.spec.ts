import { createLogger } from '@prior-auth/platform';
import { QueryFailedError } from 'typeorm';
import { DatabaseOutageTracker } from '../src/http/database-outage-tracker';
import { toErrorResponse } from '../src/http/error-handler';

describe('DatabaseOutageTracker', () => {
  const setup = () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({
      name: 'outage-test',
      level: 'debug',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    let now = 1_000;
    const tracker = new DatabaseOutageTracker(logger, () => now);
    return { lines, tracker, advance: (ms: number) => (now += ms) };
  };
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

  it('logs an outage once when it starts and once when it ends, with the count of refused requests', () => {
    const { lines, tracker, advance } = setup();
    tracker.answered();
    for (let i = 0; i < 500; i += 1) {
      tracker.refused(new Error('The database is unavailable.', { cause: refused }));
      advance(10);
    }
    expect(tracker.inOutage).toBe(true);
    advance(1_000);
    tracker.answered();
    tracker.answered();
    expect(tracker.inOutage).toBe(false);
    expect(lines.map((line) => line.msg)).toEqual([
      'database unavailable: answering 503 service_unavailable until it is back',
      'database available again',
    ]);
    expect(lines[0]).toMatchObject({ level: 40, err: { message: 'connect ECONNREFUSED 127.0.0.1:5432' } });
    expect(lines[1]).toMatchObject({ level: 30, refusedRequests: 500, outageMs: 6_000 });
  });

  it('does not call an outage over while refusals still interleave with answers (a flapping restart)', () => {
    const { lines, tracker, advance } = setup();
    for (let i = 0; i < 20; i += 1) {
      tracker.refused(refused);
      advance(100);
      tracker.answered();
    }
    expect(tracker.inOutage).toBe(true);
    expect(lines).toHaveLength(1);
    advance(1_000);
    tracker.answered();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ refusedRequests: 20 });
  });

  it('names the code of a failure without a message (every address of a host refused)', () => {
    const { lines, tracker } = setup();
    tracker.refused(Object.assign(new AggregateError([refused, refused]), { code: 'ECONNREFUSED' }));
    expect(lines[0]).toMatchObject({ err: { name: 'AggregateError', message: 'ECONNREFUSED' } });
  });
});

describe('database outages in the error envelope', () => {
  it.each([
    [
      'a refused connection (the API-key lookup, before any unit of work)',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ],
    [
      'a server shutting down',
      new QueryFailedError(
        'SELECT 1',
        [],
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
    ],
    ['too many connections', Object.assign(new Error('sorry, too many clients already'), { code: '53300' })],
    ['a connection ended unexpectedly', new Error('Connection terminated unexpectedly')],
  ])('answers %s as the retryable 503 with Retry-After', (_label, error) => {
    expect(toErrorResponse(error, 'req_1')).toEqual({
      status: 503,
      headers: { 'Retry-After': '1' },
      body: {
        error: {
          code: 'service_unavailable',
          message: expect.any(String),
          retryable: true,
          details: {},
          issues: [],
        },
        requestId: 'req_1',
      },
    });
  });
});
