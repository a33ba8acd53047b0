import { columnValue, rememberJson, rowTable } from '../unit-of-work/sql';
import { ResourceEventEntity } from './resource-event.entity';
import { decodeSnapshot, encodeSnapshot } from './resource-event.mapper';

const EVENTS = rowTable(ResourceEventEntity);
const sent = (snapshot: object): string =>
  columnValue(EVENTS, { snapshot } as never, 'snapshot' as never) as string;

describe('event snapshots', () => {
  it('tag dates, drop undefined members and come back as they were', () => {
    const state = {
      id: 'auth_1',
      createdAt: new Date('2026-11-27T12:00:00.000Z'),
      completedAt: null,
      skipped: undefined,
      items: [{ at: new Date('2026-01-02T03:04:05.006Z'), values: [1, 'two', true, null, undefined] }],
      nested: { deeper: { text: 'quote " and \\ backslash', n: 1.5 } },
    };
    const text = sent(encodeSnapshot(state));
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(parsed.createdAt).toEqual({ $date: '2026-11-27T12:00:00.000Z' });
    expect('skipped' in parsed).toBe(false);
    expect(decodeSnapshot(parsed)).toEqual({
      id: 'auth_1',
      createdAt: state.createdAt,
      completedAt: null,
      items: [{ at: state.items[0]!.at, values: [1, 'two', true, null, null] }],
      nested: state.nested,
    });
  });

  it('splice in the known text of a shared document instead of serializing it again', () => {
    const questionnaire = { id: 'q', version: '1', groups: [] };
    // A text that differs from JSON.stringify's shows which one was used.
    rememberJson(questionnaire, '{"groups": [], "id": "q", "version": "1"}');
    const text = sent(encodeSnapshot({ questionnaire, status: 'requires_input' }));
    expect(text).toBe(
      '{"questionnaire":{"groups": [], "id": "q", "version": "1"},"status":"requires_input"}',
    );
  });

  it('keep a string of the state that reads like a placeholder for a known document as it is', () => {
    const questionnaire = { id: 'q' };
    rememberJson(questionnaire, '{"id": "q"}');
    const state = { questionnaire, notes: ['\u00000', '\u00001'], other: { id: 'q' } };
    const text = sent(encodeSnapshot(state));
    expect(text).toBe('{"questionnaire":{"id": "q"},"notes":["\\u00000","\\u00001"],"other":{"id":"q"}}');
    expect(JSON.parse(text)).toEqual({ ...state, questionnaire: { id: 'q' } });
  });
});
