import { EntitySchema } from 'typeorm';
import { chainStatements, columnValue, insertStatement, rememberJson, rowTable } from './sql';

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

describe('columnValue', () => {
  it('sends the remembered text of a document instead of serializing it again', () => {
    const document = { b: 2, a: 1 };
    rememberJson(document, '{"a": 1, "b": 2}');
    expect(columnValue(NOTES, { id: 'a', body: document, title: 't' }, 'body')).toBe('{"a": 1, "b": 2}');
    expect(columnValue(NOTES, { id: 'a', body: { b: 2, a: 1 }, title: 't' }, 'body')).toBe('{"b":2,"a":1}');
    expect(columnValue(NOTES, { id: 'a', body: null, title: 't' }, 'body')).toBeNull();
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
