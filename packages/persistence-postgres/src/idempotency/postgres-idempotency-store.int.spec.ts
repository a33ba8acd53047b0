import type { TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { TypeOrmTransactions, type PostgresTransaction } from '../unit-of-work/postgres-transaction';
import { commitWrites, CommitRefusedError } from '../unit-of-work/write-batch';
import { createTestTenant, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import {
  IdempotencyClaimLostError,
  LEGACY_CLAIM_TIMEOUT_MS,
  MIN_IDEMPOTENCY_RETENTION_MS,
  PostgresIdempotencyStore,
  type ClaimRequest,
  type ClaimResult,
  type StoredResponse,
} from './postgres-idempotency-store';

let dataSource: DataSource;
let store: PostgresIdempotencyStore;
let transactions: TypeOrmTransactions;

beforeAll(async () => {
  dataSource = await openTestDataSource(12);
  store = new PostgresIdempotencyStore(dataSource);
  transactions = new TypeOrmTransactions(dataSource);
});
afterAll(() => dataSource.destroy());

// Far in the past: purging at T0 + 24 h then only touches this file's records, never a parallel test's.
const T0 = new Date('2001-03-02T09:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
// Bytes a re-serialization would change: key order, spacing, escapes, non-ASCII.
const BODY = '{"z":1,  "a":"caf\\u00e9 – ü","n":1.50,"list":[ ]}\n';
const CREATED: StoredResponse = {
  status: 201,
  headers: { location: '/v1/files/file_1', etag: '"1"' },
  body: BODY,
};

const requestFor = (
  scope: TenantScope,
  key: string,
  options: { fingerprint?: string; now?: Date } = {},
): ClaimRequest => ({
  scope,
  key,
  fingerprint: options.fingerprint ?? 'POST /v1/files sha256:abc',
  now: options.now ?? T0,
});

/** Claims in a transaction of its own, which then ends: what a request would have been told. */
const claimOnce = (scope: TenantScope, key: string, options: { fingerprint?: string; now?: Date } = {}) =>
  transactions.run((tx) => store.claim(tx, requestFor(scope, key, options)));

class Rollback extends Error {}

/** Until the server has ended the backend (a terminated backend ends asynchronously, and its locks with it). */
async function waitUntilGone(pid: number): Promise<void> {
  for (;;) {
    const rows = await dataSource.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
    if (rows.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A command in flight: its transaction claimed the key and stays open until `commit` (which stores `response`
 * there) or `rollback`.
 */
async function inFlight(request: ClaimRequest) {
  let finish!: (end: { response: StoredResponse } | 'rollback') => void;
  const ending = new Promise<{ response: StoredResponse } | 'rollback'>((resolve) => (finish = resolve));
  let claimed!: (claim: { result: ClaimResult; tx: PostgresTransaction }) => void;
  const claiming = new Promise<{ result: ClaimResult; tx: PostgresTransaction }>(
    (resolve) => (claimed = resolve),
  );
  const done = transactions
    .run(async (tx) => {
      claimed({ result: await store.claim(tx, request), tx });
      const end = await ending;
      if (end === 'rollback') throw new Rollback();
      await store.complete({ ...request, response: end.response }, tx);
    })
    .catch((error: unknown) => {
      if (!(error instanceof Rollback)) throw error;
    });
  const { result, tx } = await Promise.race([
    claiming,
    done.then(() => Promise.reject(new Error('the transaction ended before it claimed'))),
  ]);
  return {
    result,
    tx,
    done,
    commit: (response: StoredResponse) => {
      finish({ response });
      return done;
    },
    rollback: () => {
      finish('rollback');
      return done;
    },
  };
}

describe('PostgresIdempotencyStore', () => {
  let scope: TenantScope;
  let key: string;
  beforeEach(async () => {
    scope = await createTestTenant(dataSource);
    key = `key-${uniqueSuffix()}`;
  });

  it('claims a new key, answers in_flight while its transaction runs, then replays the answer byte for byte', async () => {
    const command = await inFlight(requestFor(scope, key));
    expect(command.result).toEqual({ kind: 'claimed' });
    expect(await claimOnce(scope, key, { now: at(1_000) })).toEqual({ kind: 'in_flight' });
    // Whatever the body: the key is taken, and a retry will say whether it was used for another request.
    expect(await claimOnce(scope, key, { fingerprint: 'POST /v1/files sha256:other' })).toEqual({
      kind: 'in_flight',
    });
    await command.commit(CREATED);

    const replay = await claimOnce(scope, key, { now: at(3_000) });
    expect(replay).toEqual({ kind: 'replay', ...CREATED });
    expect(replay.kind === 'replay' && Buffer.from(replay.body).equals(Buffer.from(BODY))).toBe(true);
  });

  it('answers mismatch for an answered key with another fingerprint', async () => {
    await (await inFlight(requestFor(scope, key))).commit({ status: 200, headers: {}, body: '{}' });
    expect(await claimOnce(scope, key, { fingerprint: 'POST /v1/files sha256:other' })).toEqual({
      kind: 'mismatch',
    });
  });

  it('gives exactly one of 10 concurrent claims of one key while they all run', async () => {
    const commands = await Promise.all(Array.from({ length: 10 }, () => inFlight(requestFor(scope, key))));
    const results = commands.map((command) => command.result);
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'in_flight')).toHaveLength(9);
    await Promise.all(commands.map((command) => command.rollback()));
  });

  it('scopes keys to organization and environment', async () => {
    const other = await createTestTenant(dataSource);
    const commands = [
      await inFlight(requestFor(scope, key)),
      await inFlight(requestFor(other, key, { fingerprint: 'something else' })),
      await inFlight(
        requestFor({ ...scope, environment: 'production' }, key, { fingerprint: 'something else' }),
      ),
    ];
    expect(commands.map((command) => command.result.kind)).toEqual(['claimed', 'claimed', 'claimed']);
    await Promise.all(commands.map((command) => command.commit(CREATED)));
    expect(await claimOnce(other, key, { fingerprint: 'something else' })).toMatchObject({ kind: 'replay' });
  });

  it('frees the key at once when the command rolls back, stored nothing, or its connection dies', async () => {
    await (await inFlight(requestFor(scope, key))).rollback();
    expect(await claimOnce(scope, key, { fingerprint: 'a corrected body' })).toEqual({ kind: 'claimed' });

    // A process killed mid-command: its connection ends, and with it the transaction and the claim.
    const victim = await openTestDataSource(1);
    try {
      const runner = victim.createQueryRunner();
      await runner.startTransaction();
      const tx: PostgresTransaction = { manager: runner.manager, metadata: {} };
      expect(await new PostgresIdempotencyStore(victim).claim(tx, requestFor(scope, key))).toEqual({
        kind: 'claimed',
      });
      expect(await claimOnce(scope, key)).toEqual({ kind: 'in_flight' });
      const [{ pid }] = await runner.query('SELECT pg_backend_pid() AS pid');
      await dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
      await runner.release().catch(() => undefined);
      await waitUntilGone(pid);
      expect(await claimOnce(scope, key)).toEqual({ kind: 'claimed' });
    } finally {
      await victim.destroy().catch(() => undefined);
    }
  });

  it('refuses to store an answer when another request answered the key first', async () => {
    // The claimant read the key as free; the other answer committed before it stored its own.
    const command = await inFlight(requestFor(scope, key));
    expect(command.result).toEqual({ kind: 'claimed' });
    await store.complete({
      ...requestFor(scope, key),
      response: { status: 422, headers: {}, body: 'first' },
    });
    await expect(command.commit(CREATED)).rejects.toBeInstanceOf(IdempotencyClaimLostError);
    expect(await claimOnce(scope, key)).toMatchObject({ kind: 'replay', status: 422, body: 'first' });
  });

  it("answers over an earlier version's claim only once it is presumed dead", async () => {
    // A claim row as the service wrote them before claims moved into the command's transaction.
    await dataSource.query(
      `INSERT INTO idempotency_records (organization_id, environment, key, fingerprint, state, lock_token,
         locked_at, created_at, expires_at)
       VALUES ($1, $2, $3, $4, 'in_flight', gen_random_uuid(), $5, $5, $6)`,
      [
        scope.organizationId,
        scope.environment,
        key,
        'POST /v1/files sha256:abc',
        T0,
        at(MIN_IDEMPOTENCY_RETENTION_MS),
      ],
    );
    expect(await claimOnce(scope, key, { now: at(LEGACY_CLAIM_TIMEOUT_MS - 1) })).toEqual({
      kind: 'in_flight',
    });
    const late = requestFor(scope, key, { now: at(LEGACY_CLAIM_TIMEOUT_MS) });
    const command = await inFlight(late);
    expect(command.result).toEqual({ kind: 'claimed' });
    await command.commit(CREATED);
    expect(await claimOnce(scope, key, { now: at(LEGACY_CLAIM_TIMEOUT_MS + 1) })).toMatchObject({
      kind: 'replay',
      body: BODY,
    });
  });

  it('keeps records 24 hours, then frees the key and purges them', async () => {
    await (await inFlight(requestFor(scope, key))).commit(CREATED);
    expect(await claimOnce(scope, key, { now: at(MIN_IDEMPOTENCY_RETENTION_MS - 1) })).toMatchObject({
      kind: 'replay',
    });
    // Past retention the key is new again, even with another body, and the new answer replaces the old one.
    const renewed = requestFor(scope, key, {
      now: at(MIN_IDEMPOTENCY_RETENTION_MS),
      fingerprint: 'another body',
    });
    const command = await inFlight(renewed);
    expect(command.result).toEqual({ kind: 'claimed' });
    await command.commit({ status: 200, headers: {}, body: 'renewed' });
    expect(
      await claimOnce(scope, key, { now: at(MIN_IDEMPOTENCY_RETENTION_MS + 1), fingerprint: 'another body' }),
    ).toMatchObject({ kind: 'replay', body: 'renewed' });

    const purgeKey = `purge-${uniqueSuffix()}`;
    await (await inFlight(requestFor(scope, purgeKey))).commit(CREATED);
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

  describe('an answer committed alone, the key unclaimed (decision 0055)', () => {
    /** Stores the answer in a deferred transaction that sends nothing else: one statement that commits. */
    const answerAlone = (request: ClaimRequest, response: StoredResponse = CREATED) =>
      transactions.run(
        async (tx) => {
          await store.complete({ ...request, response }, tx);
          await commitWrites(tx.manager);
        },
        {},
        { holdWrites: true, opened: () => Promise.reject(new Error('the transaction was opened')) },
      );

    it('stores the answer of a free key, which then replays', async () => {
      await answerAlone(requestFor(scope, key));
      expect(await claimOnce(scope, key, { now: at(1_000) })).toEqual({ kind: 'replay', ...CREATED });
    });

    it('is refused, storing nothing, while another transaction holds the key', async () => {
      const command = await inFlight(requestFor(scope, key));
      await expect(answerAlone(requestFor(scope, key), { ...CREATED, status: 200 })).rejects.toBeInstanceOf(
        CommitRefusedError,
      );
      await command.commit(CREATED);
      expect(await claimOnce(scope, key, { now: at(1_000) })).toEqual({ kind: 'replay', ...CREATED });
    });

    it('is refused when the key has an answer, which stays', async () => {
      await answerAlone(requestFor(scope, key));
      await expect(
        answerAlone(requestFor(scope, key, { fingerprint: 'POST /v1/files sha256:other' }), {
          ...CREATED,
          status: 200,
        }),
      ).rejects.toBeInstanceOf(CommitRefusedError);
      expect(await claimOnce(scope, key, { now: at(1_000) })).toEqual({ kind: 'replay', ...CREATED });
    });

    it('answers over a record past its retention', async () => {
      await answerAlone(requestFor(scope, key));
      const later = at(MIN_IDEMPOTENCY_RETENTION_MS + 1);
      const renewed = { ...CREATED, status: 200 };
      await answerAlone(requestFor(scope, key, { now: later }), renewed);
      expect(await claimOnce(scope, key, { now: later })).toEqual({ kind: 'replay', ...renewed });
    });
  });
});
