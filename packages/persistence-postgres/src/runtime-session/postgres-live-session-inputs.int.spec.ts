import type { TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { arrange } from '../authorization/testing/authorization-builders';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, testCursors, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';
import { PostgresLiveSessionInputs } from './postgres-live-session-inputs';
import { TypeOrmRuntimeSessionLedger } from './typeorm-runtime-session-ledger';

let dataSource: DataSource;
let unitOfWork: TypeOrmUnitOfWork;
let ledger: TypeOrmRuntimeSessionLedger;
let inputs: PostgresLiveSessionInputs;

beforeAll(async () => {
  dataSource = await openTestDataSource(4);
  unitOfWork = new TypeOrmUnitOfWork(dataSource, { cursors: testCursors() });
  ledger = new TypeOrmRuntimeSessionLedger(dataSource);
  inputs = new PostgresLiveSessionInputs(dataSource);
});
afterAll(() => dataSource.destroy());

async function liveSession(scope: TenantScope): Promise<string> {
  const arranged = arrange(scope, 'processing');
  await unitOfWork.run(scope, async (tx) => {
    for (const file of arranged.files) await tx.files.save(file);
    await tx.authorizations.save(arranged.authorization);
  });
  const id = `rs_${uniqueSuffix()}`;
  await ledger.create({
    scope,
    id,
    authorizationId: arranged.authorization.id,
    provider: 'browser',
    status: 'active',
    createdAt: new Date(),
  });
  return id;
}

const stored = async (sessionId: string): Promise<number> => {
  const rows = (await dataSource.query(
    'SELECT count(*)::int AS n FROM runtime_session_inputs WHERE session_id = $1',
    [sessionId],
  )) as Array<{ n: number }>;
  return rows[0]!.n;
};

describe('PostgresLiveSessionInputs', () => {
  it('hands a live session its input in order, once, and keeps nothing it handed over', async () => {
    const sessionId = await liveSession(await createTestTenant(dataSource));
    await inputs.send(sessionId, { kind: 'click', x: 0.5, y: 0.25 });
    await inputs.send(sessionId, { kind: 'text', text: 'secret' });
    await inputs.send(sessionId, { kind: 'key', key: 'Enter' });

    const taken = await inputs.take(sessionId);
    expect(taken.map((t) => t.input)).toEqual([
      { kind: 'click', x: 0.5, y: 0.25 },
      { kind: 'text', text: 'secret' },
      { kind: 'key', key: 'Enter' },
    ]);
    expect(await inputs.take(sessionId)).toEqual([]);
    expect(await stored(sessionId)).toBe(0);
  });

  it('drops untaken input on discard and takes none for a session that has ended', async () => {
    const sessionId = await liveSession(await createTestTenant(dataSource));
    await inputs.send(sessionId, { kind: 'text', text: 'password typed' });
    expect(await stored(sessionId)).toBe(1);
    await inputs.discard(sessionId);
    expect(await stored(sessionId)).toBe(0);

    await ledger.end(sessionId, new Date());
    await inputs.send(sessionId, { kind: 'text', text: 'too late' });
    expect(await stored(sessionId)).toBe(0);
  });
});
