import 'reflect-metadata';
import type { ClientBase } from 'pg';
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
      onConnect: listenForClientErrors,
    },
  });
}

/**
 * node-postgres's pool takes its own `error` listener off a connection for as long as it is checked out, and
 * an `error` event nobody hears ends the process. TypeORM listens while a query runner holds the connection,
 * but a database restart once raised an unheard one during the outage test all the same. So every
 * connection hears its errors for its whole life: the error also fails whatever the connection runs next
 * (a retryable "database unavailable"), and the pool discards a broken connection when it comes back.
 */
function listenForClientErrors(client: ClientBase): void {
  client.on('error', ignoreClientError);
}

const ignoreClientError = (): void => undefined;

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
