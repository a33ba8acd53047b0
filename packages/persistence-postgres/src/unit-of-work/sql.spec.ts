import { EntitySchema } from 'typeorm';
import {
  appendedTo,
  chainStatements,
  columnValue,
  insertManyStatement,
  insertStatement,
  jsonText,
  rememberJson,
  rowTable,
  TextMemo,
  versionedUpdateStatement,
} from './sql';

interface NoteRow {
  id: string;
  body: object | null;
  title: string;
}

const notesTable = (bodyType: 'json' | 'jsonb') =>
  rowTable(
    new EntitySchema<NoteRow>({
      name: 'note',
      tableName: 'notes',
      columns: {
        id: { type: 'text', primary: true },
        body: { type: bodyType, nullable: true },
        title: { type: 'text' },
      },
    }),
  );

const NOTES = notesTable('jsonb');

describe('insertStatement', () => {
  it('sends a JSON document shared by several rows once, under one placeholder', () => {
    const shared = { status: 'requires_input', items: [1, 2, 3] };
    const { sql, parameters } = insertStatement(NOTES, [
      { id: 'a', body: shared, title: 'same' },
      { id: 'b', body: shared, title: 'same' },
      { id: 'c', body: { ...shared }, title: 'other' },
    ]);
    expect(sql).toBe('INSERT INTO notes (id, body, title) VALUES ($1, $2, $3), ($4, $2, $5), ($6, $7, $8)');
    expect(parameters).toEqual([
      'a',
      JSON.stringify(shared),
      'same',
      'b',
      'same',
      'c',
      JSON.stringify(shared),
      'other',
    ]);
  });

  it('keeps every placeholder right when the statement is chained after another', () => {
    const shared = { x: 1 };
    const first = insertStatement(NOTES, [{ id: 'z', body: null, title: 't' }]);
    const second = insertStatement(NOTES, [
      { id: 'a', body: shared, title: 'u' },
      { id: 'b', body: shared, title: 'v' },
    ]);
    const chained = chainStatements([first, second]);
    expect(chained.sql).toContain('VALUES ($4, $5, $6), ($7, $5, $8)');
    expect(chained.parameters).toEqual(['z', null, 't', 'a', '{"x":1}', 'u', 'b', 'v']);
  });
});

describe('insertManyStatement', () => {
  it('has one text for any number of rows, and sends each column as the array of its values', () => {
    const one = insertManyStatement(NOTES, [{ id: 'a', body: { x: 1 }, title: 't' }]);
    const three = insertManyStatement(NOTES, [
      { id: 'a', body: { x: 1 }, title: 't' },
      { id: 'b', body: null, title: 'u' },
      { id: 'c', body: [], title: 'v' },
    ]);
    expect(one.sql).toBe(
      'INSERT INTO notes (id, body, title) SELECT * FROM unnest($1::text[], $2::jsonb[], $3::text[])',
    );
    expect(three.sql).toBe(one.sql);
    // JSON documents go as their text, so node-postgres quotes each into the array literal as a string.
    expect(three.parameters).toEqual([
      ['a', 'b', 'c'],
      ['{"x":1}', null, '[]'],
      ['t', 'u', 'v'],
    ]);
  });

  it('refuses a table with a column whose type its schema does not name', () => {
    const untyped = rowTable(
      new EntitySchema<{ id: string; title: string }>({
        name: 'untyped_note',
        tableName: 'untyped_notes',
        columns: { id: { type: 'text', primary: true }, title: { type: String } },
      }),
    );
    expect(() => insertManyStatement(untyped, [{ id: 'a', title: 't' }])).toThrow(
      'untyped_notes.title has no type in its schema',
    );
  });
});

describe('statement texts made once per shape', () => {
  it('hand out the same text for the same shape, and another for another shape', () => {
    const shared = { x: 1 };
    const rows = (body: object, other: object) => [
      { id: 'a', body, title: 'u' },
      { id: 'b', body: other, title: 'v' },
    ];
    const first = insertStatement(NOTES, rows(shared, shared), 'RETURNING id');
    const again = insertStatement(
      NOTES,
      rows({ y: 2 }, { y: 2 }).map((row, i) => ({ ...row, id: `n${i}` })),
    );
    const z = { z: 3 };
    const sharedAgain = insertStatement(NOTES, rows(z, z), 'RETURNING id');
    expect(sharedAgain.sql).toBe(first.sql);
    expect(sharedAgain.parameters).toEqual(['a', '{"z":3}', 'u', 'b', 'v']);
    // Two documents alike but not one object are two parameters: another shape, another text.
    const unshared = insertStatement(NOTES, rows({ z: 3 }, { z: 3 }), 'RETURNING id');
    expect(unshared.sql).toBe(
      'INSERT INTO notes (id, body, title) VALUES ($1, $2, $3), ($4, $5, $6) RETURNING id',
    );
    expect(again.sql).toBe('INSERT INTO notes (id, body, title) VALUES ($1, $2, $3), ($4, $5, $6)');
    expect(first.sql).toBe(
      'INSERT INTO notes (id, body, title) VALUES ($1, $2, $3), ($4, $2, $5) RETURNING id',
    );
  });

  it('renumber a text for each offset it is appended at', () => {
    const statement = { sql: 'UPDATE notes SET title = $1 WHERE id = $2', parameters: ['t', 'a'] };
    for (const offset of [0, 3, 1, 3]) {
      const parameters: unknown[] = Array.from({ length: offset }, (_, i) => i);
      expect(appendedTo(parameters, statement)).toBe(
        `UPDATE notes SET title = $${offset + 1} WHERE id = $${offset + 2}`,
      );
      expect(parameters.slice(offset)).toEqual(['t', 'a']);
    }
  });

  it('make a versioned update per set of key and immutable columns', () => {
    const row = { id: 'a', body: null, title: 't' };
    const byId = versionedUpdateStatement(NOTES, row, ['id'], [], 4);
    const frozenTitle = versionedUpdateStatement(NOTES, row, ['id'], ['title'], 5);
    expect(byId.sql).toBe(
      'UPDATE notes SET body = $1, title = $2 WHERE id = $3 AND version = $4 RETURNING version',
    );
    expect(byId.parameters).toEqual([null, 't', 'a', 4]);
    expect(frozenTitle.sql).toBe(
      'UPDATE notes SET body = $1 WHERE id = $2 AND version = $3 RETURNING version',
    );
    expect(frozenTitle.parameters).toEqual([null, 'a', 5]);
  });

  it('remember no more than their bound, and still make what they cannot remember', () => {
    const memo = new TextMemo<string>(2);
    let made = 0;
    const make = (text: string) => () => {
      made += 1;
      return text.toUpperCase();
    };
    expect(memo.get('a', make('a'))).toBe('A');
    expect(memo.get('a', make('a'))).toBe('A');
    expect(memo.remembered('b', make('b'))).toBe('B');
    expect(memo.get('c', make('c'))).toBe('C');
    expect(memo.get('c', make('c'))).toBe('C');
    expect(memo.remembered('d', make('d'))).toBeUndefined();
    expect(memo.remembered('b', make('b'))).toBe('B');
    expect(made).toBe(4);
  });
});

describe('columnValue', () => {
  it('sends the remembered text of a document instead of serializing it again', () => {
    const document = { b: 2, a: 1 };
    rememberJson(document, '{"a": 1, "b": 2}');
    expect(columnValue(NOTES, { id: 'a', body: document, title: 't' }, 'body')).toBe('{"a": 1, "b": 2}');
    expect(columnValue(NOTES, { id: 'a', body: { b: 2, a: 1 }, title: 't' }, 'body')).toBe('{"b":2,"a":1}');
    expect(columnValue(NOTES, { id: 'a', body: null, title: 't' }, 'body')).toBeNull();
  });

  it('sends a text already serialized as it is', () => {
    const body = jsonText('{"b": 2, "a": 1}');
    expect(columnValue(NOTES, { id: 'a', body, title: 't' }, 'body')).toBe('{"b": 2, "a": 1}');
    expect(Object.isFrozen(body)).toBe(true);
  });

  it('serializes a `json` column as it does a `jsonb` one (decision 0054), arrays included', () => {
    const jsonNotes = notesTable('json');
    // node-postgres would send an array as a PostgreSQL array literal: `{}` for an empty one.
    expect(columnValue(jsonNotes, { id: 'a', body: [], title: 't' }, 'body')).toBe('[]');
    expect(columnValue(jsonNotes, { id: 'a', body: [{ code: 'x' }], title: 't' }, 'body')).toBe(
      '[{"code":"x"}]',
    );
    expect(columnValue(jsonNotes, { id: 'a', body: [], title: 't' }, 'title')).toBe('t');
  });
});
