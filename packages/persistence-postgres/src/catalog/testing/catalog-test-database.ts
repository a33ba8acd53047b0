import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../database/data-source';
import { migrate } from '../../database/migration-runner';
import { ENTITY_SCHEMAS } from '../../entities';
import { CATALOG_ENTITY_SCHEMAS } from '../catalog.entity';

/**
 * A DataSource on `url` that knows the catalog entities even before they are listed in `ENTITY_SCHEMAS`
 * (deduplicated, so it keeps working once they are).
 */
export async function openCatalogDataSource(
  url = process.env.DATABASE_URL,
  poolSize = 4,
): Promise<DataSource> {
  if (!url) throw new Error('DATABASE_URL is not set: is the Jest global setup configured?');
  const dataSource = createDataSource({ url, poolSize, applicationName: 'prior-auth-test' });
  dataSource.setOptions({ entities: [...new Set([...ENTITY_SCHEMAS, ...CATALOG_ENTITY_SCHEMAS])] });
  await dataSource.initialize();
  return dataSource;
}

/** A freshly migrated scratch database on the test server, dropped afterwards; for tests that rewrite the catalog. */
export async function withScratchDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const base = new URL(process.env.DATABASE_URL!);
  const name = `prior_auth_catalog_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(base.toString());
    url.pathname = `/${name}`;
    const migrator = await openCatalogDataSource(url.toString(), 2);
    try {
      await migrate(migrator);
    } finally {
      await migrator.destroy();
    }
    return await work(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
