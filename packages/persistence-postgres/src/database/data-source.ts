import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ENTITY_SCHEMAS } from '../entities';
import { MIGRATIONS } from '../migrations';
import { AfterCommitSubscriber } from '../unit-of-work/after-commit';
import { MIGRATIONS_TABLE } from './migration-runner';

export interface DatabaseOptions {
  url: string;
  poolSize?: number;
  statementTimeoutMs?: number;
  applicationName?: string;
  /**
   * Errors of idle pooled connections (server restart, network loss). The pool drops the connection either
   * way; calls that need one fail with DatabaseUnavailableError (retryable). Default: TypeORM's warning log.
   */
  onPoolError?: (error: Error) => void;
}

/**
 * One DataSource per process. `synchronize` is never used: the schema comes only from the committed
 * migrations, run explicitly by `migrate`.
 */
export function createDataSource(options: DatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    entities: ENTITY_SCHEMAS,
    subscribers: [AfterCommitSubscriber],
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    migrationsTableName: MIGRATIONS_TABLE,
    logging: false,
    poolSize: options.poolSize ?? 10,
    applicationName: options.applicationName ?? 'prior-auth',
    ...(options.onPoolError ? { poolErrorHandler: options.onPoolError } : {}),
    extra: {
      statement_timeout: options.statementTimeoutMs ?? 15_000,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
    },
  });
}

/** Liveness of the database for `/health`: one round trip with a short timeout. */
export async function pingDatabase(dataSource: DataSource, timeoutMs = 2_000): Promise<boolean> {
  if (!dataSource.isInitialized) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      dataSource.query('SELECT 1').then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
