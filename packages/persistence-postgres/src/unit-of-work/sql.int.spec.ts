import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { runSql } from './sql';
import { uniqueSuffix } from './testing/test-tenants';

let single: DataSource;

beforeAll(async () => {
  // One connection, so the statement it prepared is the one the next read finds.
  single = await openTestDataSource(1);
});

afterAll(async () => {
  await single?.destroy();
});

describe('runSql, prepared, outside a transaction', () => {
  it('prepares the read once on the pool’s connection, runs it again by that name, and answers its rows', async () => {
    const marker = `prepared_read_${uniqueSuffix()}`;
    const text = `SELECT $1::text AS ${marker}, $2::int + 1 AS next`;
    const preparedNames = async () =>
      (
        (await single.query(`SELECT name FROM pg_prepared_statements WHERE statement = $1`, [
          text,
        ])) as Array<{
          name: string;
        }>
      ).map((row) => row.name);

    const first = await runSql<Record<string, unknown>>(single.manager, text, ['a', 1], { prepared: true });
    const named = await preparedNames();
    const second = await runSql<Record<string, unknown>>(single.manager, text, ['b', 41], { prepared: true });

    expect(first).toEqual({ rows: [{ [marker]: 'a', next: 2 }], rowCount: 1 });
    expect(second).toEqual({ rows: [{ [marker]: 'b', next: 42 }], rowCount: 1 });
    expect(named).toEqual([expect.stringMatching(/^pa_[0-9a-f]{24}$/)]);
    expect(await preparedNames()).toEqual(named);
  });

  it('answers a statement PostgreSQL refuses with its error', async () => {
    await expect(
      runSql(single.manager, 'SELECT $1::int AS n', ['not a number'], { prepared: true }),
    ).rejects.toMatchObject({ code: '22P02' });
  });
});
