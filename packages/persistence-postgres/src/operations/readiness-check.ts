import type { DataSource } from 'typeorm';
import { pingDatabase } from '../database/data-source';
import { migrationState } from '../database/migration-runner';

export interface DatabaseReadiness {
  database: 'up' | 'down';
  /** `unknown` when the database cannot be asked. */
  migrations: 'current' | 'pending' | 'ahead' | 'unknown';
}

/** The database part of a readiness probe: reachable within `timeoutMs`, and on this code's schema. */
export async function checkDatabaseReadiness(
  dataSource: DataSource,
  timeoutMs = 2_000,
): Promise<DatabaseReadiness> {
  if (!(await pingDatabase(dataSource, timeoutMs))) return { database: 'down', migrations: 'unknown' };
  const migrations = await migrationState(dataSource).catch(() => 'unknown' as const);
  return { database: 'up', migrations };
}

export const isDatabaseReady = (readiness: DatabaseReadiness): boolean =>
  readiness.database === 'up' && readiness.migrations === 'current';
