import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';

/** Who a change is made for; recorded in the audit log next to each domain event. */
export interface TransactionMetadata {
  /** For example `api_key:key_…` or `worker`. */
  actor?: string;
  requestId?: string;
}

export interface AmbientTransaction {
  dataSource: DataSource;
  manager: EntityManager;
  metadata: TransactionMetadata;
  /**
   * How a unit of work started inside joins: `savepoint` (its failure rolls back its own writes only) or
   * `direct` (no savepoint round trips: whoever opened the transaction rolls all of it back on any failure).
   */
  join: 'savepoint' | 'direct';
}

const storage = new AsyncLocalStorage<AmbientTransaction>();

/**
 * An ambient transaction for the current async call chain. The API opens one around a command, so the
 * command's unit of work and the idempotent response it stores (`PostgresIdempotencyStore.complete`) commit
 * together or not at all. Units of work started inside join it directly, without a savepoint: a command that
 * fails is rolled back whole, and the API stores a refusal's answer after that (two round trips fewer per
 * command, docs/performance.md). Work inside one ambient transaction must be sequential: it is one connection.
 */
export class TransactionContext {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in a new transaction, or inside the ambient one when already in one on this DataSource. */
  async run<T>(work: (manager: EntityManager) => Promise<T>, metadata: TransactionMetadata = {}): Promise<T> {
    const ambient = TransactionContext.current(this.dataSource);
    if (ambient !== undefined) return work(ambient.manager);
    try {
      return await this.dataSource.transaction((manager) =>
        storage.run({ dataSource: this.dataSource, manager, metadata, join: 'direct' }, () => work(manager)),
      );
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }

  /** The ambient transaction on `dataSource` (any DataSource when omitted), if the caller is inside one. */
  static current(dataSource?: DataSource): AmbientTransaction | undefined {
    const ambient = storage.getStore();
    if (ambient === undefined || (dataSource !== undefined && ambient.dataSource !== dataSource))
      return undefined;
    return ambient;
  }

  /**
   * Makes `manager`'s open transaction ambient for `work`, so adapters called from inside it (the grant ledger,
   * the runtime-session ledger) join it instead of committing on a second connection.
   */
  static within<T>(ambient: AmbientTransaction, work: () => Promise<T>): Promise<T> {
    return storage.run(ambient, work);
  }

  /** Runs `work` outside any ambient transaction, for writes that must be visible at once (idempotency claims). */
  static detached<T>(work: () => Promise<T>): Promise<T> {
    return storage.exit(work);
  }
}
