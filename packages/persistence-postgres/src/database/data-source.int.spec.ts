import type { Pool, PoolClient } from 'pg';
import { DatabaseUnavailableError, translateDatabaseError } from './database-errors';
import { openTestDataSource } from './test-database';

const poolOf = (dataSource: Awaited<ReturnType<typeof openTestDataSource>>): Pool =>
  (dataSource.driver as unknown as { master: Pool }).master;

describe('a pooled connection that the server terminates while it is checked out', () => {
  it('is heard, fails its next statement as unavailable and is dropped by the pool, which goes on working', async () => {
    const dataSource = await openTestDataSource(2);
    try {
      const pool = poolOf(dataSource);
      // Straight from the pool, as nothing in the service does: no query runner's listener is on it.
      const client: PoolClient = await pool.connect();
      const { pid } = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number };
      const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));

      await dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
      // Unheard, the connection's error would be an uncaught exception here and fail the run.
      await ended;

      const failure = await client.query('SELECT 1').then(
        () => null,
        (error: unknown) => error,
      );
      expect(translateDatabaseError(failure)).toBeInstanceOf(DatabaseUnavailableError);
      const checkedOut = pool.totalCount;
      client.release();
      expect(pool.totalCount).toBe(checkedOut - 1);
      await expect(dataSource.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
    } finally {
      await dataSource.destroy();
    }
  });
});
