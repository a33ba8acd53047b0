import { randomUUID } from 'node:crypto';
import { openTestDataSource } from '@prior-auth/persistence-postgres';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import { LeasedRateLimiter } from './leased-rate-limiter';

/*
 * Leases against the API's real shared counter (PostgreSQL, `api_rate_limits`): two processes' limiters on
 * their own connection pools never admit more than the window's budget together. The window is a minute
 * long, so however slow the machine, every request below falls in one window.
 */
describe('LeasedRateLimiter on PostgreSQL', () => {
  const BUDGET = 60;
  let pools: DataSource[];
  beforeAll(async () => {
    pools = [await openTestDataSource(2), await openTestDataSource(2)];
  });
  afterAll(async () => {
    for (const pool of pools ?? []) await pool.destroy();
  });

  const counter = (dataSource: DataSource) =>
    new RateLimiterPostgres({
      storeClient: dataSource,
      storeType: 'typeorm',
      tableName: 'api_rate_limits',
      tableCreated: true,
      keyPrefix: 'leased-int',
      points: BUDGET,
      duration: 60,
    });

  it('admits exactly the budget across two processes, leasing a few points per round trip', async () => {
    const key = `key_${randomUUID()}`;
    const refused = (): Promise<RateLimiterRes> => Promise.reject(new RateLimiterRes(0, 1_000, 0, false));
    // A lease of 7 does not divide the budget: the last lease of the window gets what is left.
    const limiters = pools.map((pool) => new LeasedRateLimiter(counter(pool), 7, refused));
    // Each process asks for more than the whole budget: a process that ran out of requests while holding leased
    // points would leave them unspent (the lease's documented loss), and the count would depend on which
    // process happened to lease faster.
    const outcomes = await Promise.all(
      Array.from({ length: 4 * BUDGET }, (_, i) =>
        limiters[i % 2]!.consume(key).then(
          () => 'admitted',
          (rejection: unknown) => (rejection instanceof RateLimiterRes ? 'refused' : 'failed'),
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'failed')).toEqual([]);
    expect(outcomes.filter((outcome) => outcome === 'admitted')).toHaveLength(BUDGET);
    const stored = await counter(pools[0]!).get(key);
    expect(stored?.consumedPoints).toBeGreaterThanOrEqual(BUDGET);
  });
});
