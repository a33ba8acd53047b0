import { LRUCache } from 'lru-cache';
import { RateLimiterRes } from 'rate-limiter-flexible';

/** The shared counter a lease is taken from (a `rate-limiter-flexible` limiter, PostgreSQL in the API). */
export interface SharedCounter {
  readonly points: number;
  consume(key: string, points: number): Promise<RateLimiterRes>;
  reward(key: string, points: number): Promise<RateLimiterRes>;
}

interface Lease {
  /** Points this process holds and has not spent yet, valid until `endsAt`. */
  left: number;
  /** What the shared counter had left for other takers when this lease was taken. */
  sharedLeft: number;
  /** When the shared window the points belong to ends (epoch ms). */
  endsAt: number;
  /** The shared window had no point left to lease: requests go to `fallback` until it ends. */
  exhausted: boolean;
  /** A lease being taken: concurrent requests on the key wait for it instead of taking their own. */
  pending: Promise<void> | null;
}

const KEYS = 10_000;

/**
 * A per-key budget counted in a shared store without a round trip per request (decision 0035): a process
 * takes `leaseSize` points of the key's current window from the shared counter at once and spends them in
 * memory until they run out or the window ends. Every point spent was counted in the shared store first, so
 * all processes together never admit more than the key's budget; points a process leased and did not spend
 * before the window ended are lost to that window (at most `leaseSize − 1` per process and window). When the
 * window has fewer points than a lease, the process takes what is left; when it has none, each request goes
 * to `fallback` (the burst allowance, one round trip each) until the window ends.
 */
export class LeasedRateLimiter {
  private readonly leases = new LRUCache<string, Lease>({ max: KEYS });

  constructor(
    private readonly shared: SharedCounter,
    private readonly leaseSize: number,
    private readonly fallback: (key: string) => Promise<RateLimiterRes>,
  ) {}

  /** Spends one point of `key`'s budget: resolves with what is left, rejects with a `RateLimiterRes` when over. */
  async consume(key: string): Promise<RateLimiterRes> {
    for (;;) {
      const now = Date.now();
      let lease = this.leases.get(key);
      if (lease && now >= lease.endsAt && !lease.pending) lease = undefined;
      if (lease?.pending) {
        await lease.pending;
        continue;
      }
      if (lease?.exhausted) return this.fallback(key);
      if (lease && lease.left > 0) {
        lease.left -= 1;
        return new RateLimiterRes(
          lease.sharedLeft + lease.left,
          lease.endsAt - now,
          this.shared.points - lease.sharedLeft - lease.left,
          false,
        );
      }
      const taking: Lease = lease ?? { left: 0, sharedLeft: 0, endsAt: 0, exhausted: false, pending: null };
      taking.pending = this.take(key, taking).finally(() => {
        taking.pending = null;
      });
      this.leases.set(key, taking);
      await taking.pending;
    }
  }

  private async take(key: string, lease: Lease): Promise<void> {
    const size = this.leaseSize;
    let result: RateLimiterRes;
    let granted = size;
    try {
      result = await this.shared.consume(key, size);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        // The store failed: nothing leased; the caller's next attempt asks the store itself and fails too.
        this.leases.delete(key);
        throw rejection;
      }
      result = rejection;
      // The points the window had before this lease went over it: keep those, give the rest back.
      granted = Math.max(0, this.shared.points - (rejection.consumedPoints - size));
      if (granted > 0) result = await this.shared.reward(key, size - granted);
    }
    lease.left = granted;
    lease.sharedLeft = Math.max(0, result.remainingPoints);
    lease.endsAt = Date.now() + result.msBeforeNext;
    lease.exhausted = granted === 0;
  }
}
