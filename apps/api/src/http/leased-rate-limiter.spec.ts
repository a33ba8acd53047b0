import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { LeasedRateLimiter, type SharedCounter } from './leased-rate-limiter';

/** A shared counter (in memory here, PostgreSQL in the API) that counts how often it is asked. */
function sharedCounter(points: number, durationSeconds = 60): SharedCounter & { calls: number } {
  const store = new RateLimiterMemory({ points, duration: durationSeconds });
  const counter = {
    calls: 0,
    points,
    consume: (key: string, n: number) => {
      counter.calls += 1;
      return store.consume(key, n);
    },
    reward: (key: string, n: number) => {
      counter.calls += 1;
      return store.reward(key, n);
    },
  };
  return counter;
}

const refused = (): Promise<RateLimiterRes> => Promise.reject(new RateLimiterRes(0, 1_000, 0, false));

/** Admitted and refused counts of `count` requests on `key`, taken in turn by `limiters`. */
async function flood(limiters: LeasedRateLimiter[], key: string, count: number) {
  const outcomes = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      limiters[i % limiters.length]!.consume(key).then(
        (result) => ({ admitted: true, result }),
        (rejection: unknown) => ({ admitted: false, result: rejection }),
      ),
    ),
  );
  return {
    admitted: outcomes.filter((outcome) => outcome.admitted),
    refused: outcomes.filter((outcome) => !outcome.admitted),
  };
}

describe('LeasedRateLimiter', () => {
  it('never admits more than the shared budget across processes, with a round trip per lease', async () => {
    const shared = sharedCounter(100);
    const processes = [1, 2, 3].map(() => new LeasedRateLimiter(shared, 5, refused));
    const { admitted, refused: over } = await flood(processes, 'key_a', 150);
    expect(admitted).toHaveLength(100);
    expect(over).toHaveLength(50);
    for (const outcome of over) expect(outcome.result).toBeInstanceOf(RateLimiterRes);
    // 100 points in leases of 5, and one attempt per process that found the window empty.
    expect(shared.calls).toBeLessThanOrEqual(100 / 5 + processes.length);
  });

  it('lets concurrent requests of one process share a lease', async () => {
    const shared = sharedCounter(100);
    const limiter = new LeasedRateLimiter(shared, 10, refused);
    const { admitted } = await flood([limiter], 'key_b', 10);
    expect(admitted).toHaveLength(10);
    expect(shared.calls).toBe(1);
  });

  it('takes what is left when the window has less than a lease, and gives the rest back', async () => {
    const shared = sharedCounter(7);
    const first = new LeasedRateLimiter(shared, 5, refused);
    const second = new LeasedRateLimiter(shared, 5, refused);
    await first.consume('key_c');
    const { admitted } = await flood([second], 'key_c', 5);
    // The second process got the 2 points the first left in the window, not 0.
    expect(admitted).toHaveLength(2);
    await expect(second.consume('key_c')).rejects.toBeInstanceOf(RateLimiterRes);
  });

  it('names what the key has left: the shared counter plus what this process holds', async () => {
    const shared = sharedCounter(100);
    const limiter = new LeasedRateLimiter(shared, 5, refused);
    const first = await limiter.consume('key_d');
    const second = await limiter.consume('key_d');
    expect(first.remainingPoints).toBe(99);
    expect(second.remainingPoints).toBe(98);
    expect(second.msBeforeNext).toBeGreaterThan(0);
    expect(second.msBeforeNext).toBeLessThanOrEqual(60_000);
  });

  it('sends requests to the fallback once the window is spent', async () => {
    const shared = sharedCounter(3);
    const fallback = jest.fn(() => Promise.resolve(new RateLimiterRes(0, 500, 4, false)));
    const limiter = new LeasedRateLimiter(shared, 3, fallback);
    await flood([limiter], 'key_e', 3);
    expect(fallback).not.toHaveBeenCalled();
    const result = await limiter.consume('key_e');
    expect(fallback).toHaveBeenCalledWith('key_e');
    expect(result.remainingPoints).toBe(0);
  });

  it('leases again when the shared window ends', async () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    try {
      const shared = sharedCounter(4, 1);
      const limiter = new LeasedRateLimiter(shared, 4, refused);
      await flood([limiter], 'key_f', 4);
      await expect(limiter.consume('key_f')).rejects.toBeInstanceOf(RateLimiterRes);
      jest.advanceTimersByTime(1_001);
      const { admitted } = await flood([limiter], 'key_f', 4);
      expect(admitted).toHaveLength(4);
    } finally {
      jest.useRealTimers();
    }
  });

  it('passes a failing store on, and asks it again on the next request', async () => {
    const shared = sharedCounter(100);
    const failing: SharedCounter = {
      points: 100,
      consume: jest
        .fn<Promise<RateLimiterRes>, [string, number]>()
        .mockRejectedValueOnce(new Error('connection refused'))
        .mockImplementation((key, n) => shared.consume(key, n)),
      reward: (key, n) => shared.reward(key, n),
    };
    const limiter = new LeasedRateLimiter(failing, 5, refused);
    await expect(limiter.consume('key_g')).rejects.toThrow('connection refused');
    await expect(limiter.consume('key_g')).resolves.toBeInstanceOf(RateLimiterRes);
  });
});
