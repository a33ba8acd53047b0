import type { EntityManager, QueryRunner } from 'typeorm';
import { hasSqlState } from '../database/database-errors';
import {
  appendedTo,
  chainStatements,
  runPreparedOn,
  runSql,
  TextMemo,
  type SqlResult,
  type SqlStatement,
} from './sql';

/** A write held back until the transaction's next statement, with what must follow its result. */
export interface HeldWrite {
  statement: SqlStatement;
  /** Checks or uses the result (its `RETURNING` rows); a throw fails the command like a failed write. */
  then?: (result: SqlResult<Record<string, unknown>>) => Promise<void> | void;
  /**
   * What `then` amounts to, so the writes may commit as one statement of their own without running it
   * (`WriteBatch.commitAlone`): `rows`, it throws when the write returns no row and does nothing otherwise;
   * `no-rows`, it does nothing when the write returns no row. A `then` without `expect` needs the transaction.
   */
  expect?: 'rows' | 'no-rows';
  /** A boolean SQL expression that must also hold when the writes commit alone (for example a key's lock). */
  condition?: SqlStatement;
}

/** SQLSTATE of `refuse_commit` (decision 0055). */
const COMMIT_REFUSED = 'PA409';

/**
 * Writes sent to commit alone were refused by a check of their statement (decision 0055): nothing of them
 * committed, and the command can be run again the usual way, where the same check has its usual answer.
 */
export class CommitRefusedError extends Error {
  constructor(cause: unknown) {
    super('the writes were refused by a check of their own statement', { cause });
    this.name = 'CommitRefusedError';
  }
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
    const target = targetOf(write.statement);
    if (target.withClause) throw new Error('a held write cannot have its own WITH clause');
    if (write.then !== undefined && !target.returning) {
      throw new Error('a held write whose result is used must have a RETURNING clause');
    }
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

  /** Whether nothing is held. */
  get isEmpty(): boolean {
    return this.held.length === 0;
  }

  /**
   * Whether what is held can commit as one statement of its own: something is held, and every `then` is one
   * its `expect` stands for.
   */
  get canCommitAlone(): boolean {
    return this.held.length > 0 && this.held.every((write) => write.then === undefined || write.expect);
  }

  /**
   * Sends what is held as one statement that commits by itself (no transaction is open on the connection):
   * each `expect` and `condition` is checked in it, and one that does not hold fails the statement through
   * `refuse_commit`, so nothing of it commits (CommitRefusedError). The `then`s are not run: `expect` says
   * they would do nothing.
   */
  async commitAlone(): Promise<void> {
    if (!this.canCommitAlone) throw new Error('these writes cannot commit alone');
    const writes = this.held;
    this.held = [];
    const { parameters, shape } = parametersOf(writes, true);
    const build = (): string => {
      const renumbered: unknown[] = [];
      const ctes = this.ctes(writes, renumbered);
      const checks = writes.flatMap((write, index) => [
        ...(write.condition === undefined ? [] : [`(${appendedTo(renumbered, write.condition)})`]),
        ...(write.expect === 'rows' ? [`EXISTS (SELECT FROM w${index})`] : []),
        ...(write.expect === 'no-rows' ? [`NOT EXISTS (SELECT FROM w${index})`] : []),
      ]);
      // Data-modifying CTEs run to completion whatever the query reads of them; the checks read what they need.
      return `WITH ${ctes.join(', ')} SELECT ${
        checks.length === 0
          ? 'true'
          : `CASE WHEN ${checks.join(' AND ')} THEN true ELSE refuse_commit('a check failed') END`
      } AS committed`;
    };
    const sql = shape === undefined ? build() : assembled.get(shape, build);
    try {
      await this.send({ sql, parameters });
    } catch (error) {
      if (hasSqlState(error, COMMIT_REFUSED)) throw new CommitRefusedError(error);
      throw error;
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
    const { parameters, shape } = parametersOf(writes, false);
    const build = (): string => {
      const ctes = this.ctes(writes, []);
      const reads = writes.flatMap((write, index) =>
        write.then === undefined ? [] : [`SELECT ${index} AS w, to_jsonb(w${index}) AS r FROM w${index}`],
      );
      return `WITH ${ctes.join(', ')} ${reads.length === 0 ? 'SELECT NULL::int AS w, NULL::jsonb AS r WHERE false' : reads.join(' UNION ALL ')}`;
    };
    const sql = shape === undefined ? build() : assembled.get(shape, build);
    const { rows } = await this.send({ sql, parameters });
    for (const row of rows as Array<{ w: number; r: Record<string, unknown> }>) {
      const list = results.get(row.w) ?? [];
      list.push(row.r);
      results.set(row.w, list);
    }
    return results;
  }

  /** The writes as CTEs `w0`, `w1`, …, their parameters renumbered into `parameters`. */
  private ctes(writes: readonly HeldWrite[], parameters: unknown[]): string[] {
    return writes.map((write, index) => `w${index} AS (${appendedTo(parameters, write.statement)})`);
  }
}

/** Statements of held writes made from CTEs, by the shape of the writes (`parametersOf`). */
const assembled = new TextMemo<string>(128);

/** A number for each text the writes are made of, for the key of their shape. */
const textNumbers = new TextMemo<number>(512);
let nextTextNumber = 0;

/**
 * The parameters of the writes' one statement (each write's, then each `condition`'s when they commit alone),
 * and the key of its text: which texts it is made of and what follows each write's result. The texts of a
 * command's writes are the same strings each time (`TextMemo`), so the key is found without reading them, and
 * the statement's text is made once per shape. No key when a text has no number left.
 */
function parametersOf(
  writes: readonly HeldWrite[],
  alone: boolean,
): { parameters: unknown[]; shape: string | undefined } {
  const parameters: unknown[] = [];
  let shape: string | undefined = alone ? 'alone' : 'batch';
  const texts = alone
    ? [...writes.map((write) => write.statement), ...writes.flatMap((write) => write.condition ?? [])]
    : writes.map((write) => write.statement);
  for (const statement of texts) {
    const number = textNumbers.remembered(statement.sql, () => nextTextNumber++);
    if (number === undefined) shape = undefined;
    else if (shape !== undefined) shape += ` ${number}:${statement.parameters.length}`;
    for (const parameter of statement.parameters) parameters.push(parameter);
  }
  if (shape !== undefined) {
    for (const write of writes) {
      shape += alone
        ? ` ${write.expect ?? '-'}${write.condition === undefined ? '' : 'c'}`
        : write.then === undefined
          ? ' -'
          : ' r';
    }
  }
  return { parameters, shape };
}

interface Target {
  table: string;
  insertOnly: boolean;
  withClause: boolean;
  returning: boolean;
}

/** What `hold` reads of a text, by text. */
const targets = new TextMemo<Target>(512);

const targetOf = (statement: SqlStatement): Target =>
  targets.get(statement.sql, () => ({
    table: TARGET.exec(statement.sql)?.[1]?.toLowerCase() ?? '',
    insertOnly: /^\s*INSERT/i.test(statement.sql) && !/ON\s+CONFLICT[\s\S]*DO\s+UPDATE/i.test(statement.sql),
    withClause: /^\s*WITH\b/i.test(statement.sql),
    returning: /\bRETURNING\b/i.test(statement.sql),
  }));

const conflicts = (a: Target, b: Target): boolean =>
  a.table === '' || b.table === '' || (a.table === b.table && !(a.insertOnly && b.insertOnly));

export interface BatchOptions {
  /**
   * Opens the transaction with its first statement instead of at `START TRANSACTION` (decision 0055), and runs
   * this right after opening it (an idempotency claim, on the runner's connection). If the transaction would
   * send nothing but its held writes, `commitWrites` commits them as one statement of their own, and the
   * transaction is never opened.
   */
  opened?: () => Promise<void>;
}

type TransactionState = 'deferred' | 'open' | 'committed';

/**
 * What `batchWrites` keeps for a runner's transaction: on the runner itself, like its wrapped `query`, rather
 * than in a weak map keyed by the runner. V8's young-generation collections keep a weak map's values until a
 * full collection, so every command's held statements were moved to the old generation
 * (docs/performance.md, twenty-ninth round).
 */
const BATCHING = Symbol('batched writes');

interface Batching {
  batch: WriteBatch;
  transaction: { state: TransactionState; open: () => Promise<void> };
}

const batchingOf = (runner: QueryRunner | undefined): Batching | undefined =>
  runner === undefined ? undefined : (runner as QueryRunner & { [BATCHING]?: Batching })[BATCHING];

/** What a statement the runner was asked for but did not need to send answers. */
const NOT_SENT = { records: [] };

/**
 * Makes the transaction on `runner` hold its writes (`WriteBatch`): every statement the runner is asked to
 * run sends what is held first; `ROLLBACK` (to a savepoint too) drops it instead. Call it before the
 * transaction starts when it is deferred (`opened`).
 */
export function batchWrites(runner: QueryRunner, options: BatchOptions = {}): WriteBatch {
  const query = runner.query.bind(runner) as (
    sql: string,
    parameters?: unknown[],
    structured?: boolean,
  ) => Promise<{ records?: unknown[]; affected?: number }>;
  const opened = options.opened;
  const batch = new WriteBatch(async (statement) => {
    // Held writes sent early (before a write they conflict with) open a deferred transaction first.
    if (transaction.state === 'deferred') await transaction.open();
    return runPreparedOn(runner, statement.sql, statement.parameters);
  });
  const transaction = {
    state: (opened === undefined ? 'open' : 'deferred') as TransactionState,
    /** While `opened` runs: what it sends goes ahead of anything held (an idempotency claim first). */
    opening: false,
    open: async () => {
      transaction.state = 'open';
      await query('START TRANSACTION');
      transaction.opening = true;
      try {
        await opened?.();
      } finally {
        transaction.opening = false;
      }
    },
  };
  (runner as { query: unknown }).query = async (
    sql: string,
    parameters?: unknown[],
    structured?: boolean,
  ) => {
    if (transaction.state !== 'open') {
      const ending = /^\s*(COMMIT|ROLLBACK)\s*$/i.exec(sql)?.[1]?.toUpperCase();
      if (transaction.state === 'committed') {
        if (ending === undefined) throw new Error('this transaction has committed its writes already');
        return NOT_SENT;
      }
      if (/^\s*START\s+TRANSACTION\s*$/i.test(sql)) return NOT_SENT;
      if (ending === 'ROLLBACK') {
        batch.drop();
        return NOT_SENT;
      }
      if (ending === 'COMMIT' && (await commitAlone(runner))) return NOT_SENT;
      await transaction.open();
    }
    if (/^\s*ROLLBACK/i.test(sql)) batch.drop();
    else if (!transaction.opening) await batch.flush();
    return query(sql, parameters, structured);
  };
  (runner as QueryRunner & { [BATCHING]?: Batching })[BATCHING] = { batch, transaction };
  return batch;
}

/**
 * In a deferred transaction that has sent nothing yet, commits what is held as one statement of its own when it
 * can (`WriteBatch.commitAlone`) and says whether it did; a transaction with nothing held has nothing to commit.
 */
async function commitAlone(runner: QueryRunner): Promise<boolean> {
  const { transaction, batch } = batchingOf(runner) ?? {};
  if (transaction?.state !== 'deferred' || batch === undefined) return false;
  if (batch.isEmpty || batch.canCommitAlone) {
    // Settled first: whatever the statement's fate, the transaction is not opened for it afterwards.
    transaction.state = 'committed';
    if (!batch.isEmpty) await batch.commitAlone();
    return true;
  }
  return false;
}

/**
 * Runs `statements` on the manager's connection as one statement (`chainStatements`), or holds them when the
 * manager's transaction holds writes. `then` gets the last statement's result either way (its `RETURNING`
 * rows and their count); `held` says what it amounts to, for writes that commit alone (`HeldWrite`).
 */
export async function writeSql(
  manager: EntityManager,
  statements: SqlStatement | readonly SqlStatement[],
  then?: HeldWrite['then'],
  held: Pick<HeldWrite, 'expect' | 'condition'> = {},
): Promise<void> {
  const list = Array.isArray(statements)
    ? (statements as readonly SqlStatement[])
    : [statements as SqlStatement];
  if (list.length === 0) return;
  const batch = batchingOf(manager.queryRunner)?.batch;
  if (batch !== undefined) {
    for (const [index, statement] of list.entries()) {
      await batch.hold({ statement, ...(index === list.length - 1 ? { then, ...held } : {}) });
    }
    return;
  }
  const chained = chainStatements(list);
  const result = await runSql(manager, chained.sql, chained.parameters);
  await then?.(result);
}

/**
 * The end of a command's work in a deferred transaction (`BatchOptions.opened`): commits its held writes as one
 * statement of their own when nothing else was sent and they can (decision 0055); otherwise opens the
 * transaction and sends them, like `flushWrites`, and the transaction commits as usual. Nothing may be sent on
 * the transaction after it.
 */
export async function commitWrites(manager: EntityManager): Promise<void> {
  const runner = manager.queryRunner;
  if (runner === undefined) return;
  if (await commitAlone(runner)) return;
  const batching = batchingOf(runner);
  if (batching?.transaction.state === 'deferred') await batching.transaction.open();
  await batching?.batch.flush();
}

/** Sends the writes the manager's transaction holds, if it holds any. */
export async function flushWrites(manager: EntityManager): Promise<void> {
  await batchingOf(manager.queryRunner)?.batch.flush();
}
