import { WriteBatch, type HeldWrite } from './write-batch';
import type { SqlStatement } from './sql';

/** A batch whose statements are recorded instead of sent. */
function recordingBatch(): { batch: WriteBatch; sent: SqlStatement[] } {
  const sent: SqlStatement[] = [];
  const batch = new WriteBatch(async (statement) => {
    sent.push(statement);
    return { rows: [], rowCount: 0 };
  });
  return { batch, sent };
}

const INSERT = 'INSERT INTO spec_notes (id, title) VALUES ($1, $2) RETURNING id';
const LOG = 'INSERT INTO spec_log (id) VALUES ($1)';

const writes = (id: string, expect: HeldWrite['expect'], logIds: string[]): HeldWrite[] => [
  { statement: { sql: INSERT, parameters: [id, `title ${id}`] }, expect, then: () => undefined },
  {
    statement: {
      sql: `INSERT INTO spec_log (id) VALUES ${logIds.map((_, i) => `($${i + 1})`).join(', ')}`,
      parameters: logIds,
    },
  },
];

async function commitAlone(held: HeldWrite[]): Promise<SqlStatement> {
  const { batch, sent } = recordingBatch();
  for (const write of held) await batch.hold(write);
  await batch.commitAlone();
  expect(sent).toHaveLength(1);
  return sent[0]!;
}

describe('WriteBatch statement texts', () => {
  it('are made once per shape: the same text, each command its own parameters', async () => {
    const first = await commitAlone(writes('a', 'rows', ['l1']));
    const second = await commitAlone(writes('b', 'rows', ['l2']));
    expect(second.sql).toBe(first.sql);
    expect(first.parameters).toEqual(['a', 'title a', 'l1']);
    expect(second.parameters).toEqual(['b', 'title b', 'l2']);
    expect(first.sql).toContain('w1 AS (INSERT INTO spec_log (id) VALUES ($3))');
    expect(first.sql).toContain('CASE WHEN EXISTS (SELECT FROM w0) THEN true');
  });

  it('differ where the shape differs: what a write expects, and how many parameters come before', async () => {
    const noRows = await commitAlone(writes('a', 'no-rows', ['l1']));
    expect(noRows.sql).toContain('CASE WHEN NOT EXISTS (SELECT FROM w0) THEN true');
    const { batch, sent } = recordingBatch();
    await batch.hold({ statement: { sql: LOG, parameters: ['l0'] } });
    for (const write of writes('a', 'rows', ['l1', 'l2'])) await batch.hold(write);
    await batch.commitAlone();
    expect(sent[0]!.sql).toContain(
      'w0 AS (INSERT INTO spec_log (id) VALUES ($1)), w1 AS (INSERT INTO spec_notes (id, title) VALUES ($2, $3)',
    );
    expect(sent[0]!.sql).toContain('w2 AS (INSERT INTO spec_log (id) VALUES ($4), ($5))');
    expect(sent[0]!.parameters).toEqual(['l0', 'a', 'title a', 'l1', 'l2']);
  });

  it('put a condition after the writes, numbered after their parameters', async () => {
    const condition = { sql: 'pg_try_advisory_xact_lock($1::int, $2::int)', parameters: [7, 9] };
    const statement = await commitAlone([{ ...writes('a', 'rows', ['l1'])[0]!, condition }]);
    expect(statement.sql).toContain('CASE WHEN (pg_try_advisory_xact_lock($3::int, $4::int)) AND EXISTS');
    expect(statement.parameters).toEqual(['a', 'title a', 7, 9]);
  });
});
