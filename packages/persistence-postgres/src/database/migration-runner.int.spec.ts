import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDataSource } from './data-source';
import { migrate, MigrationError } from './migration-runner';
import { openTestDataSource } from './test-database';
import { MIGRATIONS } from '../migrations';

/** A scratch database on the test server, so each case starts from empty. */
async function withEmptyDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const base = new URL(process.env.DATABASE_URL!);
  const name = `prior_auth_mig_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(base.toString());
    url.pathname = `/${name}`;
    return await work(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

describe('migrate', () => {
  it('builds the whole schema on an empty database and is a no-op the second time', async () => {
    await withEmptyDatabase(async (url) => {
      const dataSource = createDataSource({ url, poolSize: 3 });
      await dataSource.initialize();
      try {
        const first = await migrate(dataSource);
        expect(first).toHaveLength(MIGRATIONS.length);
        const tables = await dataSource.query(
          `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
        );
        expect(tables.map((row: { table_name: string }) => row.table_name)).toEqual(
          expect.arrayContaining([
            'organizations',
            'api_keys',
            'provider_npis',
            'payers',
            'routes',
            'authorizations',
            'authorization_attachments',
            'review_snapshots',
            'files',
            'manual_handoffs',
            'access_grants',
            'access_grant_openings',
            'audit_log',
            'idempotency_records',
          ]),
        );
        expect(await migrate(dataSource)).toEqual([]);
      } finally {
        await dataSource.destroy();
      }
    });
  });

  it('lets concurrent processes migrate one empty database exactly once', async () => {
    await withEmptyDatabase(async (url) => {
      const sources = [createDataSource({ url, poolSize: 2 }), createDataSource({ url, poolSize: 2 })];
      await Promise.all(sources.map((source) => source.initialize()));
      try {
        const results = await Promise.all(sources.map((source) => migrate(source)));
        expect(results.flat()).toHaveLength(MIGRATIONS.length);
      } finally {
        await Promise.all(sources.map((source) => source.destroy()));
      }
    });
  });

  it('refuses a database that holds a migration the code does not know', async () => {
    await withEmptyDatabase(async (url) => {
      const dataSource = createDataSource({ url, poolSize: 2 });
      await dataSource.initialize();
      try {
        await migrate(dataSource);
        await dataSource.query(`INSERT INTO schema_migrations (timestamp, name) VALUES ($1, $2)`, [
          9999999999999,
          'FromTheFuture9999999999999',
        ]);
        await expect(migrate(dataSource)).rejects.toThrow(/does not know \(FromTheFuture9999999999999\)/);
      } finally {
        await dataSource.destroy();
      }
    });
  });

  it('refuses to run a pending migration older than the newest applied one', async () => {
    class Late1000000000000 implements MigrationInterface {
      name = 'Late1000000000000';
      async up(_q: QueryRunner): Promise<void> {}
      async down(_q: QueryRunner): Promise<void> {}
    }
    await withEmptyDatabase(async (url) => {
      const first = createDataSource({ url, poolSize: 2 });
      await first.initialize();
      await migrate(first);
      await first.destroy();
      const withLate = createDataSource({ url, poolSize: 2 });
      withLate.setOptions({ migrations: [Late1000000000000, ...MIGRATIONS] });
      await withLate.initialize();
      try {
        const attempt = migrate(withLate);
        await expect(attempt).rejects.toBeInstanceOf(MigrationError);
        await expect(migrate(withLate)).rejects.toThrow(/out of order: Late1000000000000/);
      } finally {
        await withLate.destroy();
      }
    });
  });

  it('leaves the shared test database fully migrated', async () => {
    const dataSource = await openTestDataSource(2);
    try {
      expect(await migrate(dataSource)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });
});
