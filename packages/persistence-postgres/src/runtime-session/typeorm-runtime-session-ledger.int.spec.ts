import type { NewRuntimeSession, TenantScope } from '@prior-auth/domain';
import { TypeOrmTransactions } from '../unit-of-work/postgres-transaction';
import { createTestTenant, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { RuntimeSessionDatabase } from './testing/runtime-session-database';

const db = RuntimeSessionDatabase.register();

const T0 = new Date('2026-03-02T09:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

/** A stored authorization waiting for a human: sessions reference their authorization. */
const storedAuthorization = (scope: TenantScope) => db.storedAuthorization(scope, 'requires_action');

const newSession = (
  scope: TenantScope,
  authorizationId: string,
  createdAt = T0,
): NewRuntimeSession & { status: 'active' } => ({
  scope,
  id: `rs_${uniqueSuffix()}`,
  authorizationId,
  provider: 'sandbox',
  status: 'active',
  createdAt,
});

describe('TypeOrmRuntimeSessionLedger', () => {
  it('stores a session and finds it by id anywhere, and as live only within its tenant', async () => {
    const scope = await createTestTenant(db.dataSource);
    const other = await createTestTenant(db.dataSource);
    const production: TenantScope = { ...scope, environment: 'production' };
    const authorizationId = await storedAuthorization(scope);
    const session = newSession(scope, authorizationId);
    await db.ledger.create(session);

    const stored = { ...session, endedAt: null };
    expect(await db.ledger.find(session.id)).toEqual(stored);
    expect(await db.ledger.findLive(scope, authorizationId)).toEqual(stored);
    expect(await db.ledger.findLive(other, authorizationId)).toBeNull();
    expect(await db.ledger.findLive(production, authorizationId)).toBeNull();
    expect(await db.ledger.find(`rs_${uniqueSuffix()}`)).toBeNull();
  });

  it('treats the newest session not ended as live, and ends a session once', async () => {
    const scope = await createTestTenant(db.dataSource);
    const authorizationId = await storedAuthorization(scope);
    const first = newSession(scope, authorizationId, at(0));
    const second = newSession(scope, authorizationId, at(60_000));
    await db.ledger.create(first);
    await db.ledger.create(second);
    expect((await db.ledger.findLive(scope, authorizationId))?.id).toBe(second.id);

    expect(await db.ledger.end(second.id, at(120_000))).toBe(true);
    expect(await db.ledger.end(second.id, at(180_000))).toBe(false);
    expect(await db.ledger.find(second.id)).toMatchObject({ status: 'ended', endedAt: at(120_000) });
    expect((await db.ledger.findLive(scope, authorizationId))?.id).toBe(first.id);

    expect(await db.ledger.end(first.id, at(240_000))).toBe(true);
    expect(await db.ledger.findLive(scope, authorizationId)).toBeNull();
    expect(await db.ledger.end(`rs_${uniqueSuffix()}`, at(240_000))).toBe(false);
  });

  it('ends the live sessions whose beats stopped, and never those that never beat or still beat', async () => {
    const scope = await createTestTenant(db.dataSource);
    const authorizationId = await storedAuthorization(scope);
    const [dead, alive, unbeaten, ended] = [1, 2, 3, 4].map(() => newSession(scope, authorizationId));
    for (const session of [dead!, alive!, unbeaten!, ended!]) await db.ledger.create(session);
    await db.ledger.beat([dead!.id, alive!.id, ended!.id], at(0));
    await db.ledger.end(ended!.id, at(1_000));
    await db.ledger.beat([alive!.id, ended!.id], at(50_000));
    // A late beat never moves a session's last beat back.
    await db.ledger.beat([alive!.id], at(20_000));

    // Other suites' sessions share the table: only this test's are looked at.
    const mine = new Set([dead!.id, alive!.id, unbeaten!.id, ended!.id]);
    const swept = await db.ledger.endAbandoned(at(30_000), at(60_000));
    expect(swept.filter(({ id }) => mine.has(id))).toEqual([{ id: dead!.id, scope, authorizationId }]);
    expect(await db.ledger.find(dead!.id)).toMatchObject({ status: 'ended', endedAt: at(60_000) });
    expect(await db.ledger.find(alive!.id)).toMatchObject({ status: 'active', endedAt: null });
    expect(await db.ledger.find(unbeaten!.id)).toMatchObject({ status: 'active', endedAt: null });
    // The ended session stays as it ended.
    expect(await db.ledger.find(ended!.id)).toMatchObject({ status: 'ended', endedAt: at(1_000) });

    const later = await db.ledger.endAbandoned(at(50_001), at(70_000));
    expect(later.filter(({ id }) => mine.has(id)).map(({ id }) => id)).toEqual([alive!.id]);
    expect(await db.ledger.find(unbeaten!.id)).toMatchObject({ status: 'active' });
  });

  it('refuses a session for an authorization its tenant does not have', async () => {
    const scope = await createTestTenant(db.dataSource);
    const other = await createTestTenant(db.dataSource);
    const authorizationId = await storedAuthorization(scope);
    await expect(db.ledger.create(newSession(other, authorizationId))).rejects.toThrow();
  });

  it('bound to a command transaction: a session created in a command that fails rolls back with it', async () => {
    const scope = await createTestTenant(db.dataSource);
    const authorizationId = await storedAuthorization(scope);
    const transactions = new TypeOrmTransactions(db.dataSource);
    const failed = newSession(scope, authorizationId, at(0));
    const kept = newSession(scope, authorizationId, at(1_000));

    // A unit of work joined to the command's transaction: its failure rolls the whole command back.
    const attempt = transactions.run((tx) =>
      db.unitOfWork.within(tx).run(scope, async () => {
        await db.ledger.on(tx).create(failed);
        // Visible inside the transaction that created it, not yet outside.
        expect(await db.ledger.on(tx).find(failed.id)).not.toBeNull();
        expect(await db.ledger.find(failed.id)).toBeNull();
        throw new Error('handoff could not be saved');
      }),
    );
    await expect(attempt).rejects.toThrow('handoff could not be saved');
    await transactions.run((tx) => db.unitOfWork.within(tx).run(scope, () => db.ledger.on(tx).create(kept)));
    expect(await db.ledger.find(failed.id)).toBeNull();
    expect((await db.ledger.findLive(scope, authorizationId))?.id).toBe(kept.id);

    const rolledBack = newSession(scope, authorizationId, at(2_000));
    await expect(
      transactions.run(async (tx) => {
        await db.ledger.on(tx).create(rolledBack);
        throw new Error('request failed');
      }),
    ).rejects.toThrow('request failed');
    expect(await db.ledger.find(rolledBack.id)).toBeNull();
  });
});
