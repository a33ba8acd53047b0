import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { afterCommit } from './after-commit';
import { TypeOrmTransactions } from './postgres-transaction';
import { createTestTenant, uniqueSuffix } from './testing/test-tenants';
import { writeSql } from './write-batch';

let dataSource: DataSource;

beforeAll(async () => {
  dataSource = await openTestDataSource(2);
});
afterAll(() => dataSource.destroy());

/** An effect that records each time it runs. */
const recorder = () => {
  const runs: string[] = [];
  return { runs, effect: () => runs.push('ran') };
};

const organizationRow = (id: string) => ({
  sql: 'INSERT INTO organizations (id, name) VALUES ($1, $2)',
  parameters: [id, 'After-commit test'],
});

const organizations = async (id: string) =>
  ((await dataSource.query('SELECT id FROM organizations WHERE id = $1', [id])) as unknown[]).length;

describe('afterCommit', () => {
  it('runs at once after a statement that committed by itself', async () => {
    const { runs, effect } = recorder();
    await writeSql(dataSource.manager, organizationRow(`org_ac_${uniqueSuffix()}`));
    afterCommit(dataSource.manager, effect);
    expect(runs).toEqual(['ran']);
  });

  it('runs once the transaction has committed, not before, and never after a rollback', async () => {
    const committed = recorder();
    const rolledBack = recorder();
    const id = `org_ac_${uniqueSuffix()}`;

    await dataSource.transaction(async (manager) => {
      await writeSql(manager, organizationRow(id));
      afterCommit(manager, committed.effect);
      expect(committed.runs).toEqual([]);
    });
    expect(committed.runs).toEqual(['ran']);
    expect(await organizations(id)).toBe(1);

    const lost = `org_ac_${uniqueSuffix()}`;
    await expect(
      dataSource.transaction(async (manager) => {
        await writeSql(manager, organizationRow(lost));
        afterCommit(manager, rolledBack.effect);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(rolledBack.runs).toEqual([]);
    expect(await organizations(lost)).toBe(0);
  });

  it('waits past a savepoint released for the outer commit, and forgets the transaction at one rolled back', async () => {
    const released = recorder();
    const forgotten = recorder();

    await dataSource.transaction(async (outer) => {
      await outer.transaction(async (inner) => afterCommit(inner, released.effect));
      expect(released.runs).toEqual([]);
    });
    expect(released.runs).toEqual(['ran']);

    await dataSource.transaction(async (outer) => {
      afterCommit(outer, forgotten.effect);
      await expect(
        outer.transaction(async () => {
          throw new Error('to the savepoint');
        }),
      ).rejects.toThrow('to the savepoint');
    });
    // At worst an effect not run: a process forgets what it could have remembered, never the other way round.
    expect(forgotten.runs).toEqual([]);
  });

  it('runs after held writes committed as one statement (decision 0055), never when that statement failed', async () => {
    const transactions = new TypeOrmTransactions(dataSource);
    const deferred = (id: string, effect: () => void) =>
      transactions.run(
        async (tx) => {
          await writeSql(tx.manager, organizationRow(id));
          afterCommit(tx.manager, effect);
        },
        {},
        { holdWrites: true, opened: async () => {} },
      );
    const committed = recorder();
    const failed = recorder();
    const id = `org_ac_${uniqueSuffix()}`;

    await deferred(id, committed.effect);
    expect(committed.runs).toEqual(['ran']);
    expect(await organizations(id)).toBe(1);

    // The same organization again: the one statement fails on its key, and nothing commits.
    const { organizationId } = await createTestTenant(dataSource);
    await expect(deferred(organizationId, failed.effect)).rejects.toThrow(/duplicate key/);
    expect(failed.runs).toEqual([]);
  });
});
