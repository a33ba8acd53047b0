import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createDataSource } from '../database/data-source';
import { migrate } from '../database/migration-runner';
import { MIGRATIONS } from './index';

const TABLES = [
  'access_grant_openings',
  'access_grants',
  'audit_log',
  'authorization_attachments',
  'authorizations',
  'events',
  'files',
  'idempotency_records',
  'manual_handoffs',
  'outbox_events',
  'review_snapshots',
  'runtime_sessions',
  'webhook_endpoints',
];

// Every migration after the catalog one must revert cleanly, newest first, and apply again. A fresh database
// with every migration applied twice takes seconds alone and more beside other suites on a loaded machine.
const MIGRATIONS_TIMEOUT_MS = 60_000;

describe('schema migrations', () => {
  it(
    'revert cleanly and apply again on a migrated database',
    async () => {
      const base = new URL(process.env.DATABASE_URL!);
      const name = `prior_auth_schema_${randomBytes(5).toString('hex')}`;
      const admin = new Client({ connectionString: base.toString() });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(base.toString());
      url.pathname = `/${name}`;
      const dataSource = createDataSource({ url: url.toString(), poolSize: 2 });
      try {
        await dataSource.initialize();
        await migrate(dataSource);
        const tables = async () =>
          (
            await dataSource.query(
              `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name = ANY($1)
             ORDER BY table_name`,
              [TABLES],
            )
          ).map((row: { table_name: string }) => row.table_name);
        expect(await tables()).toEqual(TABLES);

        const runner = dataSource.createQueryRunner();
        try {
          await runner.startTransaction();
          const reverted = MIGRATIONS.slice(1).map((Migration) => new Migration());
          for (const migration of [...reverted].reverse()) await migration.down(runner);
          expect(
            await runner.query(
              `SELECT to_regclass('authorizations') AS t, to_regprocedure('audit_log_append_only()') AS f`,
            ),
          ).toEqual([{ t: null, f: null }]);
          for (const migration of reverted) await migration.up(runner);
          await runner.commitTransaction();
        } finally {
          await runner.release();
        }
        expect(await tables()).toEqual(TABLES);
      } finally {
        if (dataSource.isInitialized) await dataSource.destroy();
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    },
    MIGRATIONS_TIMEOUT_MS,
  );
});
