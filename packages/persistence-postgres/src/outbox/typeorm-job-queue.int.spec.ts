import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, testCursors, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';
import { JOBS_NOTIFY_CHANNEL } from './typeorm-job-queue';

let dataSource: DataSource;
let listener: Client;
const received: string[] = [];

beforeAll(async () => {
  dataSource = await openTestDataSource(4);
  listener = new Client({ connectionString: process.env.DATABASE_URL });
  await listener.connect();
  listener.on('notification', (message) => received.push(message.payload ?? ''));
  await listener.query(`LISTEN ${JOBS_NOTIFY_CHANNEL}`);
});
afterAll(async () => {
  await listener.end();
  await dataSource.destroy();
});

const waitFor = async (predicate: () => boolean, timeoutMs = 3_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!predicate() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe('TypeOrmJobQueue notifications', () => {
  it('wakes listeners when a due job commits, and never for a rolled-back or future job', async () => {
    const unitOfWork = new TypeOrmUnitOfWork(dataSource, { cursors: testCursors() });
    const scope = await createTestTenant(dataSource, 'sandbox');
    const rolledBack = `rolled_back_${uniqueSuffix()}`;
    const future = `future_${uniqueSuffix()}`;
    const due = `due_${uniqueSuffix()}`;

    await expect(
      unitOfWork.run(scope, async (tx) => {
        await tx.jobs.enqueue({ type: rolledBack, authorizationId: `auth_${uniqueSuffix()}` });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await unitOfWork.run(scope, (tx) =>
      tx.jobs.enqueue({
        type: future,
        authorizationId: `auth_${uniqueSuffix()}`,
        runAt: new Date(Date.now() + 3_600_000),
      }),
    );
    await unitOfWork.run(scope, (tx) =>
      tx.jobs.enqueue({ type: due, authorizationId: `auth_${uniqueSuffix()}` }),
    );

    await waitFor(() => received.includes(due));
    expect(received).toContain(due);
    expect(received).not.toContain(rolledBack);
    expect(received).not.toContain(future);
  });
});
