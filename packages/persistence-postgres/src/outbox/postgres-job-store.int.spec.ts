import type { TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, testCursors, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { TransactionContext } from '../unit-of-work/transaction-context';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';
import { PostgresJobStore } from './postgres-job-store';

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
    expect(claimed[0]).toMatchObject({ type, scope, payload: { n: 1 }, attempts: 1, maxAttempts: 2 });
  });

  it('retries, gives up after max attempts, and re-leases a job whose worker vanished', async () => {
    const scope = await createTestTenant(dataSource);
    const type = `test_${uniqueSuffix()}`;
    await enqueue(scope, type);
    const claim = (workerId: string, now: Date) =>
      jobs.claim({ workerId, now, leaseMs: 10_000, limit: 1, types: [type] });

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

  it('uses the partial ready-jobs index for polling', async () => {
    const [{ indexdef }] = await dataSource.query(
      `SELECT indexdef FROM pg_indexes WHERE indexname = 'jobs_ready_idx'`,
    );
    expect(indexdef).toMatch(/WHERE \(\(done_at IS NULL\) AND \(failed_at IS NULL\)\)/);
  });
});
