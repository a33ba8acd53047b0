import type { TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, testCursors, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { TransactionContext } from '../unit-of-work/transaction-context';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';
import {
  COMPLETED_JOB_RETENTION_MS,
  GIVEN_UP_JOB_RETENTION_MS,
  PostgresJobStore,
} from './postgres-job-store';

let dataSource: DataSource;
let jobs: PostgresJobStore;
let unitOfWork: TypeOrmUnitOfWork;

// Jobs are shared across tenants, so each test claims only its own job type and never sees a parallel test's.
const T0 = new Date('2026-03-02T09:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

beforeAll(async () => {
  dataSource = await openTestDataSource(8);
  jobs = new PostgresJobStore(dataSource);
  unitOfWork = new TypeOrmUnitOfWork(dataSource, {
    cursors: testCursors(),
    clock: { now: () => T0 },
    maxJobAttempts: 2,
  });
});
afterAll(() => dataSource.destroy());

const enqueue = (scope: TenantScope, type: string, runAt?: Date) =>
  unitOfWork.run(scope, (tx) =>
    tx.jobs.enqueue({ type, authorizationId: `auth_${uniqueSuffix()}`, runAt, payload: { n: 1 } }),
  );

const row = async (id: string) =>
  (
    await dataSource.query(
      `SELECT attempts, run_at, locked_by, locked_until, last_error, done_at, failed_at FROM jobs WHERE id = $1`,
      [id],
    )
  )[0];

/** One enqueued job of a type no other test uses, and a claimer for that type (10 s leases). */
async function singleJob(limit = 1) {
  const scope = await createTestTenant(dataSource);
  const type = `test_${uniqueSuffix()}`;
  await enqueue(scope, type);
  const claim = (workerId: string, now: Date) =>
    jobs.claim({ workerId, now, leaseMs: 10_000, limit, types: [type] });
  return { scope, type, claim };
}

describe('PostgresJobStore', () => {
  it('hands a due job to exactly one of many concurrent workers, with its tenant scope', async () => {
    const scope = await createTestTenant(dataSource, 'production');
    const type = `test_${uniqueSuffix()}`;
    await enqueue(scope, type);
    await enqueue(scope, type, at(60_000)); // not due yet
    const claims = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        jobs.claim({ workerId: `w${index}`, now: T0, leaseMs: 10_000, limit: 5, types: [type] }),
      ),
    );
    const claimed = claims.flat();
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({
      type,
      scope,
      payload: { n: 1 },
      attempts: 1,
      maxAttempts: 2,
      stranded: false,
    });
  });

  it('retries, gives up after max attempts, and re-leases a job whose worker vanished', async () => {
    const { claim } = await singleJob();

    const [first] = await claim('w1', T0);
    expect(await claim('w2', at(9_999))).toEqual([]); // leased
    // w1 vanished: after the lease another worker gets it, and w1 can no longer finish it.
    const [second] = await claim('w2', at(10_000));
    expect(second).toMatchObject({ id: first!.id, attempts: 2 });
    expect(await jobs.complete(first!.id, 'w1', at(10_001))).toBe(false);
    expect(
      await jobs.retryOrGiveUp(second!.id, 'w2', {
        error: 'portal timeout',
        retryAt: at(20_000),
        now: at(10_002),
      }),
    ).toBe('gave_up');
    expect(await claim('w3', at(60_000))).toEqual([]);
    const [row] = await dataSource.query('SELECT last_error, failed_at FROM jobs WHERE id = $1', [first!.id]);
    expect(row).toEqual({ last_error: 'portal timeout', failed_at: at(10_002) });
  });

  it('schedules a retry while attempts remain, and completes inside the ambient transaction', async () => {
    const scope = await createTestTenant(dataSource);
    const type = `test_${uniqueSuffix()}`;
    await enqueue(scope, type);
    const [job] = await jobs.claim({ workerId: 'w1', now: T0, leaseMs: 5_000, limit: 1, types: [type] });
    expect(await jobs.retryOrGiveUp(job!.id, 'w1', { error: 'x', retryAt: at(30_000), now: at(1) })).toBe(
      'retry_scheduled',
    );
    expect(
      await jobs.claim({ workerId: 'w1', now: at(29_999), leaseMs: 5_000, limit: 1, types: [type] }),
    ).toEqual([]);
    const [again] = await jobs.claim({
      workerId: 'w1',
      now: at(30_000),
      leaseMs: 5_000,
      limit: 1,
      types: [type],
    });

    // Marked done in a transaction that then fails: the job stays leased, not done.
    await expect(
      new TransactionContext(dataSource).run(async () => {
        expect(await jobs.complete(again!.id, 'w1', at(30_001))).toBe(true);
        throw new Error('effects failed');
      }),
    ).rejects.toThrow('effects failed');
    expect(await jobs.complete(again!.id, 'w1', at(30_002))).toBe(true);
    const [row] = await dataSource.query('SELECT done_at FROM jobs WHERE id = $1', [again!.id]);
    expect(row.done_at).toEqual(at(30_002));
  });

  describe('extendLease', () => {
    it('lets the holder keep its job past the original lease', async () => {
      const { claim } = await singleJob();
      const [job] = await claim('w1', T0);

      expect(await jobs.extendLease(job!.id, 'w1', { now: at(5_000), leaseMs: 10_000 })).toBe(true);
      expect(await claim('w2', at(10_000))).toEqual([]); // the original lease would have run out here
      expect((await row(job!.id)).locked_until).toEqual(at(15_000));
      expect(await jobs.complete(job!.id, 'w1', at(14_000))).toBe(true);
    });

    it('refuses anyone but the holder', async () => {
      const scope = await createTestTenant(dataSource);
      const type = `test_${uniqueSuffix()}`;
      await enqueue(scope, type);
      const [job] = await jobs.claim({ workerId: 'w1', now: T0, leaseMs: 10_000, limit: 1, types: [type] });

      expect(await jobs.extendLease(job!.id, 'w2', { now: at(1_000), leaseMs: 60_000 })).toBe(false);
      expect(await row(job!.id)).toMatchObject({ locked_by: 'w1', locked_until: at(10_000) });
    });

    it('refuses a holder whose lease ran out, whether or not another worker took the job', async () => {
      const { claim } = await singleJob();
      const [job] = await claim('w1', T0);

      expect(await jobs.extendLease(job!.id, 'w1', { now: at(10_000), leaseMs: 10_000 })).toBe(false);
      await claim('w2', at(10_001));
      expect(await jobs.extendLease(job!.id, 'w1', { now: at(10_002), leaseMs: 10_000 })).toBe(false);
      expect(await row(job!.id)).toMatchObject({ locked_by: 'w2', locked_until: at(20_001) });
      // The late finisher is ignored too.
      expect(await jobs.complete(job!.id, 'w1', at(10_003))).toBe(false);
      expect(
        await jobs.retryOrGiveUp(job!.id, 'w1', { error: 'late', retryAt: at(10_004), now: at(10_004) }),
      ).toBe('lease_lost');
      expect(await row(job!.id)).toMatchObject({ locked_by: 'w2', done_at: null, failed_at: null });
    });
  });

  describe('release', () => {
    it('makes the job due at once without counting the interrupted attempt, also on the final attempt', async () => {
      const { claim } = await singleJob();
      const [first] = await claim('w1', T0);
      await jobs.retryOrGiveUp(first!.id, 'w1', { error: 'portal timeout', retryAt: at(1_000), now: at(1) });
      const [last] = await claim('w1', at(1_000));
      expect(last).toMatchObject({ attempts: 2, maxAttempts: 2 });

      expect(await jobs.release(last!.id, 'w2', at(2_000), 'shutdown')).toBe(false); // not the holder
      expect(await jobs.release(last!.id, 'w1', at(2_000), 'shutdown')).toBe(true);
      expect(await row(last!.id)).toMatchObject({
        attempts: 1,
        run_at: at(2_000),
        locked_by: null,
        locked_until: null,
        last_error: 'shutdown',
      });
      // Due now, for anyone, and run as a real final attempt rather than swept as stranded.
      const [again] = await claim('w2', at(2_000));
      expect(again).toMatchObject({ id: last!.id, attempts: 2, stranded: false });
    });
  });

  describe('stranded final attempts', () => {
    it('hands a job whose final attempt lost its worker to the next claim, to be given up', async () => {
      const { claim } = await singleJob(5);
      const [first] = await claim('w1', T0);
      await jobs.retryOrGiveUp(first!.id, 'w1', { error: 'portal timeout', retryAt: at(1_000), now: at(1) });
      await claim('w1', at(1_000)); // the final attempt; w1 dies

      expect(await claim('w2', at(10_999))).toEqual([]); // still leased
      const [stranded] = await claim('w2', at(11_000));
      expect(stranded).toMatchObject({ id: first!.id, attempts: 2, stranded: true });
      expect(await row(first!.id)).toMatchObject({ attempts: 2, locked_by: 'w2', locked_until: at(21_000) });
      expect(await claim('w3', at(12_000))).toEqual([]); // leased to the sweeper

      expect(await jobs.complete(first!.id, 'w1', at(12_000))).toBe(false); // the dead worker's late finish
      expect(
        await jobs.giveUp(first!.id, 'w2', { error: 'lease_expired_on_final_attempt', now: at(12_001) }),
      ).toBe(true);
      expect(await row(first!.id)).toMatchObject({
        last_error: 'lease_expired_on_final_attempt',
        failed_at: at(12_001),
        locked_by: null,
      });
      expect(await claim('w3', at(60_000))).toEqual([]);
    });

    it('sweeps it again when the sweeper dies before giving it up', async () => {
      const { claim } = await singleJob(5);
      const [first] = await claim('w1', T0);
      await jobs.retryOrGiveUp(first!.id, 'w1', { error: 'x', retryAt: at(1_000), now: at(1) });
      await claim('w1', at(1_000));
      await claim('w2', at(11_000)); // swept; w2 dies as well

      const [again] = await claim('w3', at(21_000));
      expect(again).toMatchObject({ id: first!.id, attempts: 2, stranded: true });
    });
  });

  describe('withinTransaction', () => {
    it('commits a give-up with the work around it, or neither', async () => {
      const scope = await createTestTenant(dataSource);
      const type = `test_${uniqueSuffix()}`;
      await enqueue(scope, type);
      const [job] = await jobs.claim({ workerId: 'w1', now: T0, leaseMs: 10_000, limit: 1, types: [type] });

      await expect(
        jobs.withinTransaction(async () => {
          expect(await jobs.giveUp(job!.id, 'w1', { error: 'gave up', now: at(1) })).toBe(true);
          throw new Error('resolving the case failed');
        }),
      ).rejects.toThrow('resolving the case failed');
      expect(await row(job!.id)).toMatchObject({ locked_by: 'w1', failed_at: null });

      await jobs.withinTransaction(async () => {
        await jobs.giveUp(job!.id, 'w1', { error: 'gave up', now: at(2) });
        await unitOfWork.run(scope, (tx) => tx.jobs.enqueue({ type, authorizationId: 'follow_up' }));
      });
      expect(await row(job!.id)).toMatchObject({ failed_at: at(2) });
      const [followUp] = await jobs.claim({ workerId: 'w1', now: T0, leaseMs: 1, limit: 1, types: [type] });
      expect(followUp).toMatchObject({ authorizationId: 'follow_up' });
    });

    it('refuses to write over a change committed after its first read', async () => {
      const scope = await createTestTenant(dataSource);
      const type = `test_${uniqueSuffix()}`;
      await enqueue(scope, type);
      const [job] = await jobs.claim({ workerId: 'w1', now: T0, leaseMs: 10_000, limit: 1, types: [type] });

      await expect(
        jobs.withinTransaction(async () => {
          const manager = TransactionContext.current(dataSource)!.manager;
          await manager.query('SELECT id FROM jobs WHERE id = $1', [job!.id]); // the snapshot is taken here
          await TransactionContext.detached(() => jobs.complete(job!.id, 'w1', at(1)));
          await jobs.giveUp(job!.id, 'w1', { error: 'stale', now: at(2) });
        }),
      ).rejects.toThrow(/could not serialize/);
      expect(await row(job!.id)).toMatchObject({ done_at: at(1), failed_at: null });
    });
  });

  describe('purgeFinished', () => {
    // Old enough that no other test's jobs are affected: the purge is across tenants.
    const NOW = new Date('2001-02-01T00:00:00.000Z');
    const ago = (ms: number) => new Date(NOW.getTime() - ms);
    const insert = async (
      scope: TenantScope,
      finished: { done_at?: Date; failed_at?: Date },
      label: string,
    ): Promise<string> => {
      const [inserted] = await dataSource.query(
        `INSERT INTO jobs (organization_id, environment, type, authorization_id, run_at, max_attempts, payload,
           created_at, done_at, failed_at)
         VALUES ($1, $2, 'purge_test', $3, $4, 10, '{}', $4, $5, $6) RETURNING id`,
        [
          scope.organizationId,
          scope.environment,
          label,
          ago(365 * 24 * 60 * 60_000),
          finished.done_at ?? null,
          finished.failed_at ?? null,
        ],
      );
      return String(inserted.id);
    };
    const remaining = async (scope: TenantScope): Promise<string[]> =>
      (
        await dataSource.query(
          'SELECT authorization_id FROM jobs WHERE organization_id = $1 ORDER BY authorization_id',
          [scope.organizationId],
        )
      ).map((r: { authorization_id: string }) => r.authorization_id);

    it('removes old finished jobs and keeps recent and unfinished ones', async () => {
      const scope = await createTestTenant(dataSource);
      const minute = 60_000;
      await insert(scope, { done_at: ago(COMPLETED_JOB_RETENTION_MS + minute) }, 'completed_old');
      await insert(scope, { done_at: ago(COMPLETED_JOB_RETENTION_MS - minute) }, 'completed_recent');
      // Given up longer ago than a completed job is kept, but still within its own retention.
      await insert(scope, { failed_at: ago(COMPLETED_JOB_RETENTION_MS + minute) }, 'given_up_recent');
      await insert(scope, { failed_at: ago(GIVEN_UP_JOB_RETENTION_MS + minute) }, 'given_up_old');
      await insert(scope, {}, 'unfinished'); // created a year ago, never finished

      expect(await jobs.purgeFinished(NOW, { batchSize: 1 })).toBeGreaterThanOrEqual(2);
      expect(await remaining(scope)).toEqual(['completed_recent', 'given_up_recent', 'unfinished']);
    });

    it('lets several workers purge at once: no errors, every row deleted once', async () => {
      const scope = await createTestTenant(dataSource);
      const old = ago(GIVEN_UP_JOB_RETENTION_MS + 60_000);
      await dataSource.query(
        `INSERT INTO jobs (organization_id, environment, type, authorization_id, run_at, max_attempts, payload,
           created_at, done_at)
         SELECT $1, $2, 'purge_test', 'completed_' || n, $3, 10, '{}', $3, $3 FROM generate_series(1, 60) n`,
        [scope.organizationId, scope.environment, old],
      );
      const deleted = await Promise.all(
        Array.from({ length: 4 }, () => jobs.purgeFinished(NOW, { batchSize: 7 })),
      );
      expect(deleted.reduce((sum, n) => sum + n, 0)).toBe(60);
      expect(await remaining(scope)).toEqual([]);
    });
  });

  it('uses the partial ready-jobs index for polling', async () => {
    const [{ indexdef }] = await dataSource.query(
      `SELECT indexdef FROM pg_indexes WHERE indexname = 'jobs_ready_idx'`,
    );
    expect(indexdef).toMatch(/WHERE \(\(done_at IS NULL\) AND \(failed_at IS NULL\)\)/);
  });
});
