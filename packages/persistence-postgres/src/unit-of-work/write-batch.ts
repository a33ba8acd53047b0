import type { EntityManager, QueryRunner } from 'typeorm';
import { chainStatements, runPreparedOn, runSql, type SqlResult, type SqlStatement } from './sql';

/** A write held back until the transaction's next statement, with what must follow its result. */
interface HeldWrite {
  statement: SqlStatement;
  /** Checks or uses the result (its `RETURNING` rows); a throw fails the command like a failed write. */
  then?: (result: SqlResult<Record<string, unknown>>) => Promise<void> | void;
}

const TARGET = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([\w.]+)/i;

/**
 * The writes of one transaction that need nothing back before the command goes on (an aggregate's row, its
 * outbox, audit and event rows, the stored idempotent answer), held and sent together as ONE statement of
 * data-modifying CTEs just before the transaction's next statement, whatever issues it (a read, a job sent on
 * the connection, `COMMIT`). A rollback drops what is held. Each write's result comes back to its `then`, so
 * optimistic-concurrency checks still run, in the transaction, before it commits (docs/performance.md).
 *
 * The held writes see one snapshot, so none may depend on another's effect: a write to a table some held write
 * already targets sends the held ones first, unless both are plain inserts.
 */
export class WriteBatch {
  private held: HeldWrite[] = [];

  constructor(
    private readonly send: (statement: SqlStatement) => Promise<SqlResult<Record<string, unknown>>>,
  ) {}

  async hold(write: HeldWrite): Promise<void> {
    if (/^\s*WITH\b/i.test(write.statement.sql))
      throw new Error('a held write cannot have its own WITH clause');
    if (write.then !== undefined && !/\bRETURNING\b/i.test(write.statement.sql)) {
      throw new Error('a held write whose result is used must have a RETURNING clause');
    }
    const target = targetOf(write.statement);
    if (this.held.some((held) => conflicts(targetOf(held.statement), target))) await this.flush();
    this.held.push(write);
  }

  /** Sends what is held (nothing when nothing is). */
  async flush(): Promise<void> {
    if (this.held.length === 0) return;
    const writes = this.held;
    this.held = [];
    const results = await this.sendAll(writes);
    for (const [index, write] of writes.entries()) {
      const rows = results.get(index) ?? [];
      await write.then?.({ rows, rowCount: rows.length });
    }
  }

  /** Forgets what is held: the transaction rolls back (or back to a savepoint taken after them). */
  drop(): void {
    this.held = [];
  }

  private async sendAll(writes: readonly HeldWrite[]): Promise<Map<number, Array<Record<string, unknown>>>> {
    const results = new Map<number, Array<Record<string, unknown>>>();
    if (writes.length === 1) {
      const [only] = writes;
      results.set(0, (await this.send(only!.statement)).rows);
      return results;
    }
    const parameters: unknown[] = [];
    const ctes = writes.map((write, index) => {
      const offset = parameters.length;
      parameters.push(...write.statement.parameters);
      const sql = write.statement.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
      return `w${index} AS (${sql})`;
    });
    const reads = writes.flatMap((write, index) =>
      write.then === undefined ? [] : [`SELECT ${index} AS w, to_jsonb(w${index}) AS r FROM w${index}`],
    );
    const sql = `WITH ${ctes.join(', ')} ${reads.length === 0 ? 'SELECT NULL::int AS w, NULL::jsonb AS r WHERE false' : reads.join(' UNION ALL ')}`;
    const { rows } = await this.send({ sql, parameters });
    for (const row of rows as Array<{ w: number; r: Record<string, unknown> }>) {
      const list = results.get(row.w) ?? [];
      list.push(row.r);
      results.set(row.w, list);
    }
    return results;
  }
}

interface Target {
  table: string;
  insertOnly: boolean;
}

function targetOf(statement: SqlStatement): Target {
  const match = TARGET.exec(statement.sql);
  return {
    table: match?.[1]?.toLowerCase() ?? '',
    insertOnly: /^\s*INSERT/i.test(statement.sql) && !/ON\s+CONFLICT[\s\S]*DO\s+UPDATE/i.test(statement.sql),
  };
}

const conflicts = (a: Target, b: Target): boolean =>
  a.table === '' || b.table === '' || (a.table === b.table && !(a.insertOnly && b.insertOnly));

const batches = new WeakMap<QueryRunner, WriteBatch>();

/**
 * Makes the transaction on `runner` hold its writes (`WriteBatch`): every statement the runner is asked to
 * run sends what is held first; `ROLLBACK` (to a savepoint too) drops it instead.
 */
export function batchWrites(runner: QueryRunner): WriteBatch {
  const query = runner.query.bind(runner) as (
    sql: string,
    parameters?: unknown[],
    structured?: boolean,
  ) => Promise<{ records?: unknown[]; affected?: number }>;
  const batch = new WriteBatch((statement) => runPreparedOn(runner, statement.sql, statement.parameters));
  (runner as { query: unknown }).query = async (
    sql: string,
    parameters?: unknown[],
    structured?: boolean,
  ) => {
    if (/^\s*ROLLBACK/i.test(sql)) batch.drop();
    else await batch.flush();
    return query(sql, parameters, structured);
  };
  batches.set(runner, batch);
  return batch;
}

/**
 * Runs `statements` on the manager's connection as one statement (`chainStatements`), or holds them when the
 * manager's transaction holds writes. `then` gets the last statement's result either way (its `RETURNING`
 * rows and their count).
 */
export async function writeSql(
  manager: EntityManager,
  statements: SqlStatement | readonly SqlStatement[],
  then?: (result: SqlResult<Record<string, unknown>>) => Promise<void> | void,
): Promise<void> {
  const list = Array.isArray(statements)
    ? (statements as readonly SqlStatement[])
    : [statements as SqlStatement];
  if (list.length === 0) return;
  const batch = manager.queryRunner === undefined ? undefined : batches.get(manager.queryRunner);
  if (batch !== undefined) {
    for (const [index, statement] of list.entries()) {
      await batch.hold({ statement, ...(then && index === list.length - 1 ? { then } : {}) });
    }
    return;
  }
  const chained = chainStatements(list);
  const result = await runSql(manager, chained.sql, chained.parameters);
  await then?.(result);
}

/** Sends the writes the manager's transaction holds, if it holds any. */
export async function flushWrites(manager: EntityManager): Promise<void> {
  const batch = manager.queryRunner === undefined ? undefined : batches.get(manager.queryRunner);
  await batch?.flush();
}
