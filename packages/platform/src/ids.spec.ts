import { randomBase62, RandomIdGenerator } from './ids';

describe('randomBase62', () => {
  it('gives text of the asked length in the base62 alphabet, across refills of its random pool', () => {
    // 2,000 × 24 characters draw far more than the pool's 4,096 bytes, so the pool is refilled many times.
    const ids = Array.from({ length: 2_000 }, () => randomBase62(24));
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every character of the alphabet', () => {
    const seen = new Set(randomBase62(5_000));
    expect(seen.size).toBe(62);
  });

  it('prefixes generated ids', () => {
    expect(new RandomIdGenerator().newId('auth')).toMatch(/^auth_[0-9A-Za-z]{24}$/);
  });
});
