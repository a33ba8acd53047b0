import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { bootstrapDatabase } from './database-bootstrap';
import { createDataSource } from './data-source';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './embedded-postgres';

interface TestDatabaseState {
  embedded: EmbeddedPostgresHandle | null;
  adminUrl: string | null;
  databaseName: string | null;
}

const STATE_KEY = '__priorAuthTestDatabase';

/**
 * Jest global setup for suites that need PostgreSQL. With `DATABASE_URL` set, a fresh database is created on
 * that server for this run (so a schema left by another run never interferes); without it, a throwaway
 * embedded server on a free port. Either way the committed migrations run, and `DATABASE_URL` points the
 * test workers at the result.
 */
export async function setupTestDatabase(): Promise<void> {
  const state: TestDatabaseState = { embedded: null, adminUrl: null, databaseName: null };
  let url: string;
  if (process.env.DATABASE_URL) {
    const adminUrl = process.env.DATABASE_URL;
    const databaseName = `prior_auth_test_${randomBytes(6).toString('hex')}`;
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${databaseName}`);
    } finally {
      await client.end();
    }
    const target = new URL(adminUrl);
    target.pathname = `/${databaseName}`;
    url = target.toString();
    Object.assign(state, { adminUrl, databaseName });
  } else {
    state.embedded = await startEmbeddedPostgres({ persistent: false });
    url = state.embedded.url;
  }
  const database = await bootstrapDatabase({ databaseUrl: url, poolSize: 2 });
  await database.close();
  process.env.DATABASE_URL = url;
  (globalThis as Record<string, unknown>)[STATE_KEY] = state;
}

export async function teardownTestDatabase(): Promise<void> {
  const state = (globalThis as Record<string, unknown>)[STATE_KEY] as TestDatabaseState | undefined;
  if (!state) return;
  if (state.adminUrl && state.databaseName) {
    const client = new Client({ connectionString: state.adminUrl });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${state.databaseName} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }
  await state.embedded?.stop();
}

/** A connected DataSource on the test database prepared by `setupTestDatabase` (no migrations run). */
export async function openTestDataSource(poolSize = 5) {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: is the Jest global setup configured?');
  const dataSource = createDataSource({ url, poolSize, applicationName: 'prior-auth-test' });
  await dataSource.initialize();
  return dataSource;
}
