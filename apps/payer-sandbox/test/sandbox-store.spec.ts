import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { SandboxStore } from '../src/sandbox-store';
import { databaseUrl } from './support/portal-harness';

describe('SandboxStore', () => {
  it('keeps answering after the server ends the connections waiting in its pool (a database restart)', async () => {
    const name = `payer-sandbox-test-${randomBytes(4).toString('hex')}`;
    const store = await SandboxStore.open(databaseUrl(), [], name);
    const admin = new Client({ connectionString: databaseUrl() });
    await admin.connect();
    try {
      expect(await store.account('nobody')).toBeNull();
      const { rows } = await admin.query(
        'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1',
        [name],
      );
      expect(rows.length).toBeGreaterThan(0);
      // Until the server has closed them, the pool may still hand one out; once it has, the pool opens anew.
      for (;;) {
        const left = await admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [name]);
        if (left.rows.length === 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await expect(retried(() => store.account('nobody'))).resolves.toBeNull();
    } finally {
      await admin.end();
      await store.close();
    }
  });
});

/** The first query after the server ended a connection may still be given that connection, and fail. */
async function retried<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch {
    return query();
  }
}
