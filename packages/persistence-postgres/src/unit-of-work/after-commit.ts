import {
  EventSubscriber,
  type EntityManager,
  type EntitySubscriberInterface,
  type QueryRunner,
  type TransactionCommitEvent,
  type TransactionRollbackEvent,
} from 'typeorm';

/** What each open transaction runs once it has committed, by its connection's runner. */
const pending = new WeakMap<QueryRunner, Array<() => void>>();

/**
 * Runs `effect` once what was just written through `manager` has committed: at once when `manager` has no
 * transaction open (its statement committed by itself), else when its transaction commits, and never when it
 * rolls back. For what a process may only remember about the database once it is there for every other process
 * too (a stored questionnaire, decision 0065).
 */
export function afterCommit(manager: EntityManager, effect: () => void): void {
  const runner = manager.queryRunner;
  if (runner === undefined || !runner.isTransactionActive) {
    effect();
    return;
  }
  const effects = pending.get(runner);
  if (effects === undefined) pending.set(runner, [effect]);
  else effects.push(effect);
}

/**
 * Runs the effects of `afterCommit` (a subscriber every DataSource of the package has). TypeORM tells it after a
 * `COMMIT` that succeeded, whichever way the transaction was held or committed (decision 0055's single statement
 * too); a savepoint released leaves the transaction open, and its effects wait for the outer commit.
 */
export class AfterCommitSubscriber implements EntitySubscriberInterface {
  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    if (queryRunner.isTransactionActive) return;
    const effects = pending.get(queryRunner);
    if (effects === undefined) return;
    pending.delete(queryRunner);
    for (const effect of effects) effect();
  }

  /** A rollback, even to a savepoint, forgets every effect of the transaction: at worst one not run. */
  afterTransactionRollback({ queryRunner }: TransactionRollbackEvent): void {
    pending.delete(queryRunner);
  }
}

// What `@EventSubscriber()` does: a DataSource takes only the subscriber classes registered with TypeORM.
EventSubscriber()(AfterCommitSubscriber);
