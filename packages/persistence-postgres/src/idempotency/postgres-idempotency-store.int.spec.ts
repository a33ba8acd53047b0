import type { TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import {
  IdempotencyClaimLostError,
  MIN_IDEMPOTENCY_RETENTION_MS,
  PostgresIdempotencyStore,
  type ClaimResult,
} from './postgres-idempotency-store';

let dataSource: DataSource;
let store: PostgresIdempotencyStore;

beforeAll(async () => {
  dataSource = await openTestDataSource(12);
  store = new PostgresIdempotencyStore(dataSource);
});
afterAll(() => dataSource.destroy());

// Far in the past: purging at T0 + 24 h then only touches this file's records, never a parallel test's.
const T0 = new Date('2001-03-02T09:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const LOCK_TIMEOUT_MS = 30_000;
// Bytes a re-serialization would change: key order, spacing, escapes, non-ASCII.
const BODY = '{"z":1,  "a":"caf\\u00e9 – ü","n":1.50,"list":[ ]}\n';

const claim = (scope: TenantScope, key: string, options: { fingerprint?: string; now?: Date } = {}) =>
  store.claim({
    scope,
    key,
    fingerprint: options.fingerprint ?? 'POST /v1/files sha256:abc',
    now: options.now ?? T0,
    lockTimeoutMs: LOCK_TIMEOUT_MS,
  });

const claimed = (result: ClaimResult): string => {
  if (result.kind !== 'claimed') throw new Error(`expected a claim, got ${result.kind}`);
  return result.claimToken;
};

describe('PostgresIdempotencyStore', () => {
  let scope: TenantScope;
  let key: string;
  beforeEach(async () => {
    scope = await createTestTenant(dataSource);
    key = `key-${uniqueSuffix()}`;
  });

  it('claims a new key, answers in_flight while it runs, then replays the stored response byte for byte', async () => {
    const token = claimed(await claim(scope, key));
    expect(await claim(scope, key, { now: at(1_000) })).toEqual({ kind: 'in_flight' });
    await store.complete({
      scope,
      key,
      claimToken: token,
      response: { status: 201, headers: { location: '/v1/files/file_1', etag: '"1"' }, body: BODY },
      now: at(2_000),
    });
    const replay = await claim(scope, key, { now: at(3_000) });
    expect(replay).toEqual({
      kind: 'replay',
      status: 201,
      headers: { location: '/v1/files/file_1', etag: '"1"' },
      body: BODY,
    });
    expect(replay.kind === 'replay' && Buffer.from(replay.body).equals(Buffer.from(BODY))).toBe(true);
  });

  it('answers mismatch for the same key with another fingerprint, in flight or completed', async () => {
    const token = claimed(await claim(scope, key));
    expect(await claim(scope, key, { fingerprint: 'POST /v1/files sha256:other' })).toEqual({
      kind: 'mismatch',
    });
    await store.complete({
      scope,
      key,
      claimToken: token,
      response: { status: 200, headers: {}, body: '{}' },
      now: T0,
    });
    expect(await claim(scope, key, { fingerprint: 'POST /v1/files sha256:other' })).toEqual({
      kind: 'mismatch',
    });
  });

  it('gives exactly one of 20 concurrent claims of one key', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => claim(scope, key)));
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'in_flight')).toHaveLength(19);
  });

  it('scopes keys to organization and environment', async () => {
    const other = await createTestTenant(dataSource);
    claimed(await claim(scope, key));
    claimed(await claim(other, key, { fingerprint: 'something else' }));
    claimed(await claim({ ...scope, environment: 'production' }, key, { fingerprint: 'something else' }));
  });

  it('takes over a claim whose lock timed out; the old holder can then neither store nor release', async () => {
    const stale = claimed(await claim(scope, key));
    expect(await claim(scope, key, { now: at(LOCK_TIMEOUT_MS - 1) })).toEqual({ kind: 'in_flight' });
    const fresh = claimed(await claim(scope, key, { now: at(LOCK_TIMEOUT_MS) }));
    expect(fresh).not.toBe(stale);

    const late = store.complete({
      scope,
      key,
      claimToken: stale,
      response: { status: 200, headers: {}, body: 'old' },
      now: at(LOCK_TIMEOUT_MS + 1),
    });
    await expect(late).rejects.toBeInstanceOf(IdempotencyClaimLostError);
    expect(await store.release({ scope, key, claimToken: stale })).toBe(false);

    await store.complete({
      scope,
      key,
      claimToken: fresh,
      response: { status: 200, headers: {}, body: 'new' },
      now: at(LOCK_TIMEOUT_MS + 2),
    });
    expect(await claim(scope, key, { now: at(LOCK_TIMEOUT_MS + 3) })).toMatchObject({
      kind: 'replay',
      body: 'new',
    });
  });

  it('lets only one of several concurrent takeovers win', async () => {
    claimed(await claim(scope, key));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => claim(scope, key, { now: at(LOCK_TIMEOUT_MS * 2) })),
    );
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
  });

  it('release frees the key for a retry', async () => {
    const token = claimed(await claim(scope, key));
    expect(await store.release({ scope, key, claimToken: token })).toBe(true);
    claimed(await claim(scope, key, { fingerprint: 'a corrected body' }));
  });

  it('keeps records 24 hours, then frees the key and purges them', async () => {
    const token = claimed(await claim(scope, key));
    await store.complete({
      scope,
      key,
      claimToken: token,
      response: { status: 201, headers: {}, body: '{}' },
      now: T0,
    });
    const dayLater = at(MIN_IDEMPOTENCY_RETENTION_MS);
    expect(await claim(scope, key, { now: at(MIN_IDEMPOTENCY_RETENTION_MS - 1) })).toMatchObject({
      kind: 'replay',
    });
    // Past retention the key is new again, even with another body.
    claimed(await claim(scope, key, { now: dayLater, fingerprint: 'another body' }));

    const purgeKey = `purge-${uniqueSuffix()}`;
    claimed(await claim(scope, purgeKey));
    const count = async () =>
      Number(
        (
          await dataSource.query(
            'SELECT count(*) FROM idempotency_records WHERE organization_id = $1 AND key = $2',
            [scope.organizationId, purgeKey],
          )
        )[0].count,
      );
    await store.purgeExpired(at(MIN_IDEMPOTENCY_RETENTION_MS - 1));
    expect(await count()).toBe(1);
    expect(await store.purgeExpired(at(MIN_IDEMPOTENCY_RETENTION_MS), 1)).toBeGreaterThanOrEqual(1);
    expect(await count()).toBe(0);
  });

  it('refuses a retention shorter than 24 hours', () => {
    expect(() => new PostgresIdempotencyStore(dataSource, { retentionMs: 60_000 })).toThrow(/24 hours/);
  });
});
