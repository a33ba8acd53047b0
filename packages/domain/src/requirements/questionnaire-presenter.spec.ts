import type { Condition } from './questionnaire.types';
import { applyDefaults, presentQuestionnaire } from './questionnaire-presenter';
import { bool, code, item, num, response, str, template } from './testing/template-builder';

const equals = (linkId: string, value: boolean): Condition => ({
  linkId,
  operator: '=',
  answer: bool(value),
});

describe('presentQuestionnaire', () => {
  const withText = template(
    [
      item('minor', 'boolean', { defaultValue: bool(false) }),
      item('name', 'string', {
        required: true,
        textWhen: {
          cases: [
            { when: equals('minor', true), text: "Guardian's name" },
            { when: equals('minor', false), text: "Patient's name" },
          ],
        },
        notAllowedWhen: { linkId: 'minor', operator: 'exists', exists: false },
      }),
    ],
    [item('plain', 'decimal', { min: '1' })],
  );

  it.each([
    ['the first matching case', { minor: [bool(true)] }, "Guardian's name"],
    ['a later case', { minor: [bool(false)] }, "Patient's name"],
    ['the item text when no case holds', {}, 'Question name'],
  ])('resolves textWhen to %s', (_label, answers, expected) => {
    const groups = presentQuestionnaire(withText, response(answers));
    expect(groups[0]?.items[1]?.text).toBe(expected);
  });

  it('keeps everything else of the item, conditions and defaults included', () => {
    const groups = presentQuestionnaire(withText, response({ minor: [bool(true)] }));
    expect(groups).toEqual([
      {
        id: 'group-1',
        title: 'Group 1',
        items: [withText.groups[0]!.items[0], { ...withText.groups[0]!.items[1], text: "Guardian's name" }],
      },
      { id: 'group-2', title: 'Group 2', items: [withText.groups[1]!.items[0]] },
    ]);
  });

  it('does not mutate the template', () => {
    const before = JSON.stringify(withText);
    presentQuestionnaire(withText, response({ minor: [bool(true)] }));
    expect(JSON.stringify(withText)).toBe(before);
  });
});

describe('applyDefaults', () => {
  it('fills defaults of unanswered allowed items, after the given entries, in template order', () => {
    const form = template([
      item('a', 'decimal', { defaultValue: num(1) }),
      item('b', 'string', { defaultValue: str('x') }),
      item('c', 'coding', { options: [{ code: 'k', display: 'K' }], defaultValue: code('k') }),
    ]);
    expect(applyDefaults(form, response({ b: [str('mine')] }))).toEqual({
      item: [
        { linkId: 'b', answer: [str('mine')] },
        { linkId: 'a', answer: [num(1)] },
        { linkId: 'c', answer: [code('k')] },
      ],
    });
  });

  it('replaces an empty answer array in place', () => {
    const form = template([item('a', 'decimal'), item('b', 'decimal', { defaultValue: num(2) })]);
    expect(
      applyDefaults(form, {
        item: [
          { linkId: 'b', answer: [] },
          { linkId: 'a', answer: [num(1)] },
        ],
      }),
    ).toEqual({
      item: [
        { linkId: 'b', answer: [num(2)] },
        { linkId: 'a', answer: [num(1)] },
      ],
    });
  });

  it('skips items that are not allowed, and lets a default enable a later item', () => {
    const form = template([
      item('dependent', 'string', { defaultValue: str('d'), notAllowedWhen: { not: equals('gate', true) } }),
      item('gate', 'boolean', { defaultValue: bool(true) }),
      item('blocked', 'string', { defaultValue: str('b'), notAllowedWhen: equals('gate', true) }),
    ]);
    expect(applyDefaults(form, { item: [] })).toEqual({
      item: [
        { linkId: 'dependent', answer: [str('d')] },
        { linkId: 'gate', answer: [bool(true)] },
      ],
    });
    expect(applyDefaults(form, response({ gate: [bool(false)] }))).toEqual({
      item: [
        { linkId: 'gate', answer: [bool(false)] },
        { linkId: 'blocked', answer: [str('b')] },
      ],
    });
  });

  it('returns a new response and copies defaults', () => {
    const form = template([item('c', 'coding', { defaultValue: code('k') })]);
    const given = { item: [] };
    const filled = applyDefaults(form, given);
    expect(given).toEqual({ item: [] });
    filled.item[0]!.answer[0]!.valueCoding!.code = 'changed';
    expect(form.groups[0]!.items[0]!.defaultValue).toEqual(code('k'));
  });
});
