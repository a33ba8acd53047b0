import { createHash } from 'node:crypto';
import { QueryFailedError, type EntityManager, type EntitySchema, type QueryRunner } from 'typeorm';
import { Query } from 'pg';

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
  options: { prepared?: boolean } = {},
): Promise<SqlResult<T>> {
  if (options.prepared && !manager.queryRunner) return runPrepared<T>(manager, sql, parameters);
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = await runner.query(sql, parameters, true);
    const rows = (result.records ?? []) as T[];
    return { rows, rowCount: result.affected ?? rows.length };
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}

/**
 * Texts derived from SQL texts (a statement's name, its renumbered form, a generated statement's text), kept so
 * each is made once per process instead of per command. The SQL texts of a command come from a few shapes, so
 * a memo holds at most `limit` of them; a text met once it is full is derived again each time, as before. A
 * remembered text is also the same string each time, so looking it up again hashes nothing (docs/performance.md).
 */
export class TextMemo<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly limit: number) {}

  /** `make()`'s value for `key`, made once while there is room. */
  get(key: string, make: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = make();
      if (this.entries.size < this.limit) this.entries.set(key, value);
    }
    return value;
  }

  /** As `get`, but only a value that is or can be remembered: none once the memo is full. */
  remembered(key: string, make: () => V): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined || this.entries.size >= this.limit) return value;
    return this.get(key, make);
  }
}

/**
 * Names of the statements prepared on the connections, by their text (the hot reads and writes). Each connection
 * keeps a prepared statement per text it ran, so the names are bounded; a text met once they are all given runs
 * unnamed, as before.
 */
const preparedNames = new TextMemo<string>(64);

/** The name `sql` is prepared under, derived from its text so one name never stands for two texts. */
const preparedName = (sql: string): string | undefined =>
  preparedNames.remembered(sql, () => `pa_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`);

/**
 * A hot read outside any transaction, straight on the pool as a named prepared statement: each connection
 * parses and plans it once instead of per call, and no query runner is made and released around it
 * (docs/performance.md).
 */
async function runPrepared<T>(
  manager: EntityManager,
  sql: string,
  parameters: unknown[],
): Promise<SqlResult<T>> {
  const name = preparedName(sql);
  const pool = (manager.connection.driver as unknown as { master: PreparedPool }).master;
  const result = await pool.query(preparedQuery(name, sql, parameters));
  return { rows: result.rows as T[], rowCount: result.rowCount ?? result.rows.length };
}

/**
 * `statement` on the runner's connection (its transaction) as a named prepared statement: a command's one
 * statement of held writes has the same text for every command of a kind, and parsing and planning it was a
 * large part of PostgreSQL's work per command (docs/performance.md). Errors come as TypeORM's, as from
 * `runner.query`. The runner's own `query` is not used: it would send the held writes again.
 */
export async function runPreparedOn<T = Record<string, unknown>>(
  runner: QueryRunner,
  sql: string,
  parameters: unknown[],
): Promise<SqlResult<T>> {
  const name = preparedName(sql);
  const client = (await runner.connect()) as PreparedClient;
  try {
    const result = await new Promise<QueryResult>((resolve, reject) =>
      client.query(preparedQuery(name, sql, parameters), (error, answer) =>
        error ? reject(error) : resolve(answer),
      ),
    );
    return { rows: result.rows as T[], rowCount: result.rowCount ?? result.rows.length };
  } catch (error) {
    throw new QueryFailedError(sql, parameters, error as Error);
  }
}

/**
 * The query node-postgres runs for `sql`, named when it is prepared. Made from the text and the values, not
 * from a config object: node-postgres copies a config object with its property descriptors before reading it,
 * the largest of its own costs per query in a profile of retrieves (docs/performance.md).
 */
function preparedQuery(name: string | undefined, sql: string, parameters: unknown[]): Query {
  // The name is the field node-postgres's constructor sets from a config's `name`; its types do not list it.
  const query: Query & { name?: string } = new Query(sql, parameters);
  if (name !== undefined) query.name = name;
  return query;
}

type QueryResult = { rows: unknown[]; rowCount: number | null };

/** node-postgres's pool answers a query object with a promise. */
interface PreparedPool {
  query(query: Query): Promise<QueryResult>;
}

/** A client answers a query object through its callback: without one it returns the query, not a promise. */
interface PreparedClient {
  query(query: Query, callback: (error: Error | undefined, result: QueryResult) => void): void;
}

/** Column layout of a table, read from its EntitySchema so the SQL and the row type cannot drift apart. */
export interface RowTable<Row> {
  table: string;
  /** Insertable columns in declaration order (identity columns excluded). */
  columns: Array<keyof Row & string>;
  /** JSON and JSONB columns: their values are sent as JSON text. */
  json: ReadonlySet<string>;
  /** Each insertable column's PostgreSQL type as the schema names it (`text`, `timestamptz`, …), when it does. */
  types: Readonly<Partial<Record<keyof Row & string, string>>>;
}

export function rowTable<Row>(schema: EntitySchema<Row>): RowTable<Row> {
  const options = schema.options;
  if (!options.tableName) throw new Error(`entity ${options.name} has no tableName`);
  const columns: Array<keyof Row & string> = [];
  const json = new Set<string>();
  const types: Partial<Record<keyof Row & string, string>> = {};
  for (const [name, column] of Object.entries(options.columns) as Array<
    [keyof Row & string, { type?: unknown; generated?: unknown; insert?: boolean } | undefined]
  >) {
    if (!column || column.generated !== undefined || column.insert === false) continue;
    columns.push(name);
    if (typeof column.type === 'string') types[name] = column.type;
    if (column.type === 'json' || column.type === 'jsonb') json.add(name);
  }
  return { table: options.tableName, columns, json, types };
}

/**
 * JSON texts of documents that are never changed in place (a questionnaire template read from a row is
 * replaced, not edited, docs/performance.md): saving such a document again sends the text it was read from
 * instead of serializing it anew.
 */
const knownJson = new WeakMap<object, string>();

/** Records `text` as the JSON of `document`, which nobody changes in place from now on. */
export function rememberJson(document: object, text: string): void {
  knownJson.set(document, text);
}

/** The JSON text recorded for `document` by `rememberJson`, if any. */
export const rememberedJson = (document: object): string | undefined => knownJson.get(document);

/**
 * A JSON parameter already serialized. The text is held by the object itself, not by an entry of `knownJson`:
 * V8's young-generation collections keep a weak map's values until a full collection, so a text per saved
 * event kept there was moved to the old generation (docs/performance.md, twenty-ninth round).
 */
class JsonText {
  constructor(readonly text: string) {
    Object.freeze(this);
  }
}

/** A JSON parameter already serialized: `columnValue` sends `text` as it is. */
export function jsonText(text: string): object {
  return new JsonText(text);
}

/**
 * A parameter for a column. JSON and JSONB values are serialized here: node-postgres would turn a JavaScript array
 * into a PostgreSQL array literal, not JSON.
 */
export function columnValue<Row>(table: RowTable<Row>, row: Row, column: keyof Row & string): unknown {
  const value = row[column];
  if (!table.json.has(column)) return value;
  if (value === null || value === undefined) return null;
  if (value instanceof JsonText) return value.text;
  return (typeof value === 'object' && knownJson.get(value)) || JSON.stringify(value);
}

/** Generated statement texts, by table and shape (`insertStatement`, `versionedUpdateStatement`). */
const generated = new WeakMap<RowTable<never>, TextMemo<string>>();

const generatedTexts = <Row>(table: RowTable<Row>): TextMemo<string> => {
  let texts = generated.get(table as RowTable<never>);
  if (texts === undefined) {
    texts = new TextMemo<string>(64);
    generated.set(table as RowTable<never>, texts);
  }
  return texts;
};

/**
 * `INSERT INTO t (…) VALUES (…), (…)` for `rows`, with its parameters; `tail` adds ON CONFLICT/RETURNING.
 * Rows that share one JSON document in a column (the events of one save share their snapshot) share its
 * parameter: it is serialized and sent once. The text depends only on the shape (how many rows, which
 * placeholders are shared, the tail), so it is made once per shape.
 */
export function insertStatement<Row>(
  table: RowTable<Row>,
  rows: readonly Row[],
  tail = '',
): { sql: string; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const shared = new Map<string, Map<object, number>>();
  /** Each placeholder's parameter number, in the order of the rows' columns. */
  const placeholders: number[] = [];
  /** The placeholders that repeat an earlier parameter, as `position=number,`: the shape's only variable part. */
  let repeats = '';
  for (const row of rows) {
    for (const column of table.columns) {
      const value = row[column];
      const document = table.json.has(column) && typeof value === 'object' && value !== null ? value : null;
      if (document !== null && rows.length > 1) {
        const seen = shared.get(column) ?? new Map<object, number>();
        shared.set(column, seen);
        const index = seen.get(document);
        if (index !== undefined) {
          repeats += `${placeholders.length}=${index},`;
          placeholders.push(index);
          continue;
        }
        seen.set(document, parameters.length + 1);
      }
      parameters.push(columnValue(table, row, column));
      placeholders.push(parameters.length);
    }
  }
  const sql = generatedTexts(table).get(`insert ${rows.length} ${repeats} ${tail}`, () => {
    const width = table.columns.length;
    const tuples = rows.map(
      (_, r) =>
        `(${placeholders
          .slice(r * width, (r + 1) * width)
          .map((n) => `$${n}`)
          .join(', ')})`,
    );
    return `INSERT INTO ${table.table} (${table.columns.join(', ')}) VALUES ${tuples.join(', ')} ${tail}`.trim();
  });
  return { sql, parameters };
}

/**
 * `INSERT INTO t (…) SELECT * FROM unnest($1::type[], …)` for `rows`: one parameter per column, the array of
 * its values, so the text is the same however many rows there are. For batches of many rows and varying size
 * (the read audit's, decision 0035): a `VALUES` list per batch size made a new text of tens of kilobytes for
 * nearly every batch, for PostgreSQL to parse and plan each time (docs/performance.md, thirtieth round).
 * Every column needs its type in the schema.
 */
export function insertManyStatement<Row>(table: RowTable<Row>, rows: readonly Row[]): SqlStatement {
  const parameters = table.columns.map((column) => rows.map((row) => columnValue(table, row, column)));
  const sql = generatedTexts(table).get('insert many', () => {
    const arrays = table.columns.map((column, i) => {
      const type = table.types[column];
      if (type === undefined) throw new Error(`${table.table}.${column} has no type in its schema`);
      return `$${i + 1}::${type}[]`;
    });
    return `INSERT INTO ${table.table} (${table.columns.join(', ')}) SELECT * FROM unnest(${arrays.join(', ')})`;
  });
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
  const texts = statements.map((statement) => appendedTo(parameters, statement));
  const last = texts.pop()!;
  return { sql: `WITH ${texts.map((text, i) => `w${i} AS (${text})`).join(', ')} ${last}`, parameters };
}

/** Renumbered texts: by text, then by offset. */
const renumberedTexts = new TextMemo<Map<number, string>>(256);

/**
 * Appends the statement's parameters to `parameters`, and returns its text renumbered to match (`$1` becomes
 * `$<offset + 1>`). Only for texts whose `$` are all placeholders.
 */
export function appendedTo(parameters: unknown[], statement: SqlStatement): string {
  const offset = parameters.length;
  for (const parameter of statement.parameters) parameters.push(parameter);
  if (offset === 0) return statement.sql;
  const byOffset = renumberedTexts.get(statement.sql, () => new Map());
  let text = byOffset.get(offset);
  if (text === undefined) {
    text = statement.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    if (byOffset.size < 16) byOffset.set(offset, text);
  }
  return text;
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
  const sets = table.columns.filter((column) => !keys.includes(column) && !immutable.includes(column));
  const parameters: unknown[] = sets.map((column) => columnValue(table, row, column));
  for (const column of keys) parameters.push(row[column]);
  parameters.push(expectedVersion);
  const sql = generatedTexts(table).get(`update ${keys.join(',')} ${immutable.join(',')}`, () => {
    const assignments = sets.map((column, i) => `${column} = $${i + 1}`);
    const where = [...keys, 'version'].map((column, i) => `${column} = $${sets.length + i + 1}`);
    return `UPDATE ${table.table} SET ${assignments.join(', ')} WHERE ${where.join(' AND ')} RETURNING version`;
  });
  return { sql, parameters };
}
