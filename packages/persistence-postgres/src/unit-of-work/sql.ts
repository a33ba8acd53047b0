import type { EntityManager, EntitySchema } from 'typeorm';

export interface SqlResult<T> {
  rows: T[];
  rowCount: number;
}

/**
 * Runs parameterized SQL on the manager's connection (its transaction, when it has one) and returns rows and
 * the affected-row count. `EntityManager.query` hides the count behind command-specific shapes, and the
 * optimistic-concurrency checks need exactly that count.
 */
export async function runSql<T = Record<string, unknown>>(
  manager: EntityManager,
  sql: string,
  parameters: unknown[] = [],
): Promise<SqlResult<T>> {
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = await runner.query(sql, parameters, true);
    const rows = (result.records ?? []) as T[];
    return { rows, rowCount: result.affected ?? rows.length };
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}

/** Column layout of a table, read from its EntitySchema so the SQL and the row type cannot drift apart. */
export interface RowTable<Row> {
  table: string;
  /** Insertable columns in declaration order (identity columns excluded). */
  columns: Array<keyof Row & string>;
  jsonb: ReadonlySet<string>;
}

export function rowTable<Row>(schema: EntitySchema<Row>): RowTable<Row> {
  const options = schema.options;
  if (!options.tableName) throw new Error(`entity ${options.name} has no tableName`);
  const columns: Array<keyof Row & string> = [];
  const jsonb = new Set<string>();
  for (const [name, column] of Object.entries(options.columns) as Array<
    [keyof Row & string, { type?: unknown; generated?: unknown; insert?: boolean } | undefined]
  >) {
    if (!column || column.generated !== undefined || column.insert === false) continue;
    columns.push(name);
    if (column.type === 'jsonb') jsonb.add(name);
  }
  return { table: options.tableName, columns, jsonb };
}

/**
 * A parameter for a column. JSONB values are serialized here: node-postgres would turn a JavaScript array
 * into a PostgreSQL array literal, not JSON.
 */
export function columnValue<Row>(table: RowTable<Row>, row: Row, column: keyof Row & string): unknown {
  const value = row[column];
  if (table.jsonb.has(column)) return value === null || value === undefined ? null : JSON.stringify(value);
  return value;
}

/** `INSERT INTO t (…) VALUES (…), (…)` for `rows`, with its parameters; `tail` adds ON CONFLICT/RETURNING. */
export function insertStatement<Row>(
  table: RowTable<Row>,
  rows: readonly Row[],
  tail = '',
): { sql: string; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const tuples = rows.map((row) => {
    const placeholders = table.columns.map((column) => {
      parameters.push(columnValue(table, row, column));
      return `$${parameters.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  const sql =
    `INSERT INTO ${table.table} (${table.columns.join(', ')}) VALUES ${tuples.join(', ')} ${tail}`.trim();
  return { sql, parameters };
}

export interface SqlStatement {
  sql: string;
  parameters: unknown[];
}

/**
 * Several writes as ONE statement (one round trip): all but the last become data-modifying CTEs, and each
 * one's `$n` placeholders are renumbered after the ones before it. Only for statements whose text has no `$`
 * but placeholders (generated ones such as `insertStatement`'s). The writes see one snapshot, so none may read
 * what another writes; foreign keys between them are checked at the end of the statement.
 */
export function chainStatements(statements: readonly SqlStatement[]): SqlStatement {
  if (statements.length === 1) return statements[0]!;
  const parameters: unknown[] = [];
  const texts = statements.map((statement) => {
    const offset = parameters.length;
    parameters.push(...statement.parameters);
    return offset === 0
      ? statement.sql
      : statement.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  });
  const last = texts.pop()!;
  return { sql: `WITH ${texts.map((text, i) => `w${i} AS (${text})`).join(', ')} ${last}`, parameters };
}

/**
 * `UPDATE t SET … WHERE k1 = $ AND … AND version = $expected RETURNING version`: the optimistic update of one
 * aggregate row. `keys` are the tenant and id columns; they are never updated.
 */
export function versionedUpdateStatement<Row>(
  table: RowTable<Row>,
  row: Row,
  keys: ReadonlyArray<keyof Row & string>,
  immutable: ReadonlyArray<keyof Row & string>,
  expectedVersion: number,
): { sql: string; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const sets = table.columns
    .filter((column) => !keys.includes(column) && !immutable.includes(column))
    .map((column) => {
      parameters.push(columnValue(table, row, column));
      return `${column} = $${parameters.length}`;
    });
  const where = keys.map((column) => {
    parameters.push(row[column]);
    return `${column} = $${parameters.length}`;
  });
  parameters.push(expectedVersion);
  where.push(`version = $${parameters.length}`);
  return {
    sql: `UPDATE ${table.table} SET ${sets.join(', ')} WHERE ${where.join(' AND ')} RETURNING version`,
    parameters,
  };
}
