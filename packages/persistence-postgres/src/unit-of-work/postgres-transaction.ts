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
   * `opened` (with `holdWrites`): the transaction opens with its first statement, and `opened` runs right after;
   * writes that are all it would send commit as one statement of their own instead (`commitWrites`, decision
   * 0055).
   */
  async run<T>(
    work: (tx: PostgresTransaction) => Promise<T>,
    metadata: TransactionMetadata = {},
    options: { holdWrites?: boolean; opened?: (tx: PostgresTransaction) => Promise<void> } = {},
  ): Promise<T> {
    // What `DataSource.transaction` does, with the runner in hand before `START TRANSACTION` so it can be deferred.
    const runner = this.dataSource.createQueryRunner();
    const tx: PostgresTransaction = { manager: runner.manager, metadata };
    try {
      if (options.holdWrites) {
        const opened = options.opened;
        batchWrites(runner, opened === undefined ? {} : { opened: () => opened(tx) });
      }
      await runner.startTransaction();
      try {
        const result = await work(tx);
        await runner.commitTransaction();
        return result;
      } catch (error) {
        try {
          await runner.rollbackTransaction();
        } catch {
          // The first failure is the one to report; the connection is released (and discarded if broken) below.
        }
        throw error;
      }
    } catch (error) {
      throw translateDatabaseError(error);
    } finally {
      await runner.release();
    }
  }
}

/** The connection of an adapter bound to `tx` (`on(tx)`), or of one on the pool (each statement commits). */
export const managerOf = (dataSource: DataSource, tx: PostgresTransaction | undefined): EntityManager =>
  tx?.manager ?? dataSource.manager;
