import type { PostgresTransaction } from '@prior-auth/persistence-postgres';

/**
 * Use cases on the pool (reads, preconditions), and `within(tx)` the same use cases with every port bound to
 * a command's transaction: its units of work join it and its adapters read on its connection, so a command
 * holds one connection, never two.
 */
export type TransactionBound<T> = T & { within(tx: PostgresTransaction): T };

/** `build()` once for the pool; `build(tx)` for each command. */
export function transactionBound<T extends object>(
  build: (tx?: PostgresTransaction) => T,
): TransactionBound<T> {
  return Object.assign(build(), { within: (tx: PostgresTransaction) => build(tx) });
}
