import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './embedded-postgres';
import { seedCatalog } from '../catalog/seed-catalog';
import { migrate } from './migration-runner';

export interface DatabaseBootstrapOptions {
  /** When set, used as is; otherwise an embedded PostgreSQL is started. */
  databaseUrl?: string;
  /** Folder for the embedded server's persistent data (`<dataDir>/postgres`); a throwaway one when absent. */
  dataDir?: string;
  embeddedPort?: number;
  poolSize?: number;
  statementTimeoutMs?: number;
  applicationName?: string;
  runMigrations?: boolean;
  /** Upserts the shipped payer/route catalog after migrating (idempotent; defaults to runMigrations). */
  seedCatalog?: boolean;
  onLog?: (line: string) => void;
  /** See DatabaseOptions.onPoolError. */
  onPoolError?: (error: Error) => void;
}

export interface BootstrappedDatabase {
  url: string;
  dataSource: DataSource;
  embedded: EmbeddedPostgresHandle | null;
  /** Server settings the service's performance depends on that are not as it expects; the apps log them. */
  warnings: string[];
  /** Closes the pool, then stops the embedded server when this process started it. */
  close(): Promise<void>;
}

/**
 * The one way apps, the admin CLI and tests get a database: `DATABASE_URL` when given, else a real embedded
 * PostgreSQL; then the committed migrations and the catalog seed.
 */
export async function bootstrapDatabase(options: DatabaseBootstrapOptions): Promise<BootstrappedDatabase> {
  const embedded = options.databaseUrl
    ? null
    : await startEmbeddedPostgres({
        dataDir: options.dataDir ? join(options.dataDir, 'postgres') : undefined,
        port: options.embeddedPort,
        persistent: Boolean(options.dataDir),
        onLog: options.onLog,
      });
  const url = options.databaseUrl ?? embedded!.url;
  const dataSource = createDataSource({
    url,
    poolSize: options.poolSize,
    statementTimeoutMs: options.statementTimeoutMs,
    applicationName: options.applicationName,
    onPoolError: options.onPoolError,
  });
  let warnings: string[];
  try {
    await dataSource.initialize();
    if (options.runMigrations ?? true) await migrate(dataSource);
    if (options.seedCatalog ?? options.runMigrations ?? true) await seedCatalog(dataSource);
    warnings = await serverWarnings(dataSource);
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
    throw error;
  }
  return {
    url,
    dataSource,
    embedded,
    warnings,
    close: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
      await embedded?.stop();
    },
  };
}

/**
 * With autovacuum off nothing analyzes the tables, and the planner works from default estimates: a lookup by
 * id may then walk a tenant's whole list index instead of the primary key (docs/performance.md).
 */
async function serverWarnings(dataSource: DataSource): Promise<string[]> {
  const [row] = (await dataSource.query(`SELECT current_setting('autovacuum') AS autovacuum`)) as Array<{
    autovacuum: string;
  }>;
  return row?.autovacuum === 'off'
    ? [
        "PostgreSQL's autovacuum is off: tables are never analyzed, so reads may use slower plans as they grow; " +
          'turn it on, or run ANALYZE regularly (docs/performance.md).',
      ]
    : [];
}
