import type { DataSource, EntityManager } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import { batchWrites } from './write-batch';

/** Who a change is made for; recorded in the audit log next to each domain event. */
export interface TransactionMetadata {
  /** For example `api_key:key_…` or `worker`. */
  actor?: string;
  requestId?: string;
}

/**
 * An open transaction, handed explicitly to whatever must work inside it: a unit of work joined to it
 * (`TypeOrmUnitOfWork.within`), the adapters a command reads through (`on(tx)`), and the idempotent response
 * stored with the command (`PostgresIdempotencyStore.complete`). One connection: work on it is sequential.
 */
export interface PostgresTransaction {
  readonly manager: EntityManager;
  readonly metadata: TransactionMetadata;
}

/** Opens transactions for work that spans more than one unit of work (an API command, a worker job). */
export class TypeOrmTransactions {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `work` in a new transaction: it commits when `work` resolves and rolls back whole when it throws.
   * `holdWrites`: the writes that need nothing back at once go out together just before the transaction's next
   * statement (`WriteBatch`; an API command's writes and its stored answer become one statement).
   */
  async run<T>(
    work: (tx: PostgresTransaction) => Promise<T>,
    metadata: TransactionMetadata = {},
    options: { holdWrites?: boolean } = {},
  ): Promise<T> {
    try {
      return await this.dataSource.transaction((manager) => {
        if (options.holdWrites && manager.queryRunner) batchWrites(manager.queryRunner);
        return work({ manager, metadata });
      });
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}

/** The connection of an adapter bound to `tx` (`on(tx)`), or of one on the pool (each statement commits). */
export const managerOf = (dataSource: DataSource, tx: PostgresTransaction | undefined): EntityManager =>
  tx?.manager ?? dataSource.manager;
