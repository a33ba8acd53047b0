import { columnValue, rowTable } from '../unit-of-work/sql';
import { AuthorizationEntity, type AuthorizationRow } from './authorization.entity';
import { PARSED_QUESTIONNAIRES, questionnaireFromText } from './questionnaire-text-cache';

const text = (id: string) =>
  JSON.stringify({ id, version: '1', title: 'T', groups: [{ id: 'g', title: 'G', items: [] }] });

describe('questionnaireFromText', () => {
  it('parses a text once and hands every read the same frozen template', () => {
    const stored = text(`tpl-same-${Date.now()}`);
    const first = questionnaireFromText(stored);
    const second = questionnaireFromText(`${stored}`);
    expect(second).toBe(first);
    expect(first.groups[0]?.id).toBe('g');
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.groups[0])).toBe(true);
    expect(() => {
      (first.groups as unknown[]).push({});
    }).toThrow(TypeError);
  });

  it('saves the template with the text it was read from', () => {
    const stored = `{"id": "tpl-text-${Date.now()}", "groups": [], "title": "T", "version": "1"}`;
    const template = questionnaireFromText(stored);
    const table = rowTable(AuthorizationEntity);
    const row = { questionnaire: template } as unknown as AuthorizationRow;
    expect(columnValue(table, row, 'questionnaire')).toBe(stored);
  });

  it('keeps a bounded number of texts, the most recently used', () => {
    const kept = text(`tpl-kept-${Date.now()}`);
    const template = questionnaireFromText(kept);
    for (let i = 0; i < PARSED_QUESTIONNAIRES; i += 1) {
      questionnaireFromText(text(`tpl-fill-${i}-${Date.now()}`));
      // Read again in between: it stays the most recently used one.
      if (i % 10 === 0) questionnaireFromText(kept);
    }
    expect(questionnaireFromText(kept)).toBe(template);
    const evicted = text(`tpl-evicted-${Date.now()}`);
    const before = questionnaireFromText(evicted);
    for (let i = 0; i < PARSED_QUESTIONNAIRES; i += 1)
      questionnaireFromText(text(`tpl-more-${i}-${Date.now()}`));
    expect(questionnaireFromText(evicted)).not.toBe(before);
    expect(questionnaireFromText(evicted)).toEqual(before);
  });
});
