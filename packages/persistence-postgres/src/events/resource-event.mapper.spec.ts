import type { QuestionnaireTemplate } from '@prior-auth/domain';
import { questionnaireDocumentId, sharedQuestionnaire } from '../authorization/questionnaire-text-cache';
import { columnValue, rememberJson, rowTable } from '../unit-of-work/sql';
import { ResourceEventEntity } from './resource-event.entity';
import {
  decodeSnapshot,
  encodeSnapshot,
  toResourceEvent,
  type EncodedSnapshot,
} from './resource-event.mapper';

const EVENTS = rowTable(ResourceEventEntity);
const sent = (snapshot: EncodedSnapshot): string =>
  columnValue(EVENTS, { snapshot: snapshot.json } as never, 'snapshot' as never) as string;

/** A catalog template as the catalog hands it out: stored once, so snapshots point at it (decision 0060). */
const catalogTemplate = (id: string): QuestionnaireTemplate =>
  sharedQuestionnaire({
    id,
    version: '1',
    title: `Template ${id}`,
    groups: [{ linkId: 'g', text: 'Group', items: [] }],
  } as unknown as QuestionnaireTemplate);

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

  it('point at a stored questionnaire instead of writing it, and read it back as the shared template', () => {
    const questionnaire = catalogTemplate(`q_${Math.random().toString(36).slice(2)}`);
    const text = JSON.stringify(questionnaire);
    const id = questionnaireDocumentId(text);
    const encoded = encodeSnapshot({
      kind: 'authorization',
      state: { questionnaire, status: 'requires_input' },
    });
    expect(encoded.questionnaireId).toBe(id);
    const stored = sent(encoded);
    expect(stored).toBe(
      `{"kind":"authorization","state":{"questionnaire":{"$questionnaire":"${id}"},"status":"requires_input"}}`,
    );
    const decoded = decodeSnapshot(JSON.parse(stored), { id, text }) as {
      state: { questionnaire: QuestionnaireTemplate };
    };
    expect(decoded.state.questionnaire).toBe(questionnaire);
    expect(decoded).toEqual({ kind: 'authorization', state: { questionnaire, status: 'requires_input' } });
  });

  it('point at one stored questionnaire only, and write any other in full', () => {
    const first = catalogTemplate(`q_${Math.random().toString(36).slice(2)}`);
    const second = catalogTemplate(`q_${Math.random().toString(36).slice(2)}`);
    const encoded = encodeSnapshot({ first, second });
    expect(encoded.questionnaireId).toBe(questionnaireDocumentId(JSON.stringify(first)));
    expect(JSON.parse(sent(encoded))).toEqual({
      first: { $questionnaire: encoded.questionnaireId },
      second: JSON.parse(JSON.stringify(second)),
    });
  });

  it('write a questionnaire that is not a stored template in full, and point at nothing', () => {
    const questionnaire = { id: 'portal-questions', version: '1', groups: [] };
    const encoded = encodeSnapshot({ questionnaire });
    expect(encoded.questionnaireId).toBeNull();
    expect(sent(encoded)).toBe('{"questionnaire":{"id":"portal-questions","version":"1","groups":[]}}');
  });

  it("keep a state's own object that reads like a tag for another document as it is", () => {
    const questionnaire = catalogTemplate(`q_${Math.random().toString(36).slice(2)}`);
    const text = JSON.stringify(questionnaire);
    const id = questionnaireDocumentId(text);
    const state = {
      questionnaire,
      note: { $questionnaire: 'qst_other' },
      none: { $questionnaire: id, extra: 1 },
    };
    const decoded = decodeSnapshot(JSON.parse(sent(encodeSnapshot(state))), { id, text });
    expect(decoded).toEqual(state);
  });

  it('point at a stored questionnaire also when the state has text that reads like a placeholder', () => {
    const questionnaire = catalogTemplate(`q_${Math.random().toString(36).slice(2)}`);
    const text = JSON.stringify(questionnaire);
    const id = questionnaireDocumentId(text);
    const other = { id: 'known' };
    rememberJson(other, '{"id": "known"}');
    const state = { questionnaire, other, notes: ['\u00000'] };
    const encoded = encodeSnapshot(state);
    expect(encoded.questionnaireId).toBe(id);
    expect(sent(encoded)).toBe(
      `{"questionnaire":{"$questionnaire":"${id}"},"other":{"id": "known"},"notes":["\\u00000"]}`,
    );
    expect(decodeSnapshot(JSON.parse(sent(encoded)), { id, text })).toEqual({
      ...state,
      other: { id: 'known' },
    });
  });

  it('refuse a row that points at a stored questionnaire the read did not return, instead of a snapshot with a hole', () => {
    const row = {
      sequence: '1',
      id: 'evt_1',
      organization_id: 'org_1',
      environment: 'sandbox' as const,
      type: 'authorization.updated',
      authorization_id: 'auth_1',
      created_at: new Date('2026-11-27T12:00:00.000Z'),
      snapshot: { kind: 'authorization', state: { questionnaire: { $questionnaire: 'qst_1' } } },
      snapshot_event_id: null,
      snapshot_questionnaire_id: 'qst_1',
    };
    expect(() => toResourceEvent({ ...row, snapshot_questionnaire: null })).toThrow(
      'event evt_1 points at questionnaire qst_1, not read with it',
    );
    const text = '{"id":"q_read","groups":[]}';
    expect(toResourceEvent({ ...row, snapshot_questionnaire: text }).snapshot).toEqual({
      kind: 'authorization',
      state: { questionnaire: JSON.parse(text) },
    });
  });
});
