import fc from 'fast-check';
import { REQUIREMENT_ISSUE_CODES } from './answer-validator';
import type {
  Answer,
  Condition,
  DocumentRequirement,
  QuestionnaireGroupRule,
  QuestionnaireItemTemplate,
  QuestionnaireResponse,
  QuestionnaireTemplate,
} from './questionnaire.types';
import { evaluateRequirements } from './requirements-engine';
import { bool, code, date, item, num, response, str, template } from './testing/template-builder';

const answered = (linkId: string): Condition => ({ linkId, operator: 'exists', exists: true });
const equals = (linkId: string, answer: Answer): Condition => ({ linkId, operator: '=', answer });

function evaluate(
  items: QuestionnaireItemTemplate[],
  answers: Record<string, Answer[]> | QuestionnaireResponse,
  documents: DocumentRequirement[] = [],
  attached: string[] = [],
) {
  const given =
    'item' in answers && Array.isArray(answers.item)
      ? (answers as QuestionnaireResponse)
      : response(answers as Record<string, Answer[]>);
  return evaluateRequirements(template(items), documents, given, attached);
}

const issueCodes = (result: { issues: Array<{ code: string; field: string }> }) =>
  result.issues.map((issue) => `${issue.field}:${issue.code}`);

describe('evaluateRequirements: questions', () => {
  it('lists required items without answers, in template order, with a message', () => {
    const result = evaluate(
      [
        item('a', 'string', { required: true }),
        item('b', 'string'),
        item('c', 'decimal', { required: true }),
      ],
      {},
    );
    expect(result.questions).toEqual([
      { linkId: 'a', message: 'An answer is required: Question a' },
      { linkId: 'c', message: 'An answer is required: Question c' },
    ]);
    expect(result.issues).toEqual([]);
  });

  it('counts an item with an empty answer array as unanswered', () => {
    const result = evaluate([item('a', 'string', { required: true })], { a: [] });
    expect(result.questions.map((question) => question.linkId)).toEqual(['a']);
  });

  it('drops an item once answered', () => {
    expect(evaluate([item('a', 'string', { required: true })], { a: [str('x')] }).questions).toEqual([]);
  });

  it.each([
    ['holds', { flag: [bool(true)] }, ['detail']],
    ['does not hold', { flag: [bool(false)] }, []],
    ['reads an unanswered item', {}, []],
  ])('requiredWhen that %s', (_label, answers: Record<string, Answer[]>, expected) => {
    const items = [
      item('flag', 'boolean'),
      item('detail', 'string', { requiredWhen: equals('flag', bool(true)) }),
    ];
    expect(evaluate(items, answers).questions.map((question) => question.linkId)).toEqual(expected);
  });

  it('never requires an item that is not allowed, even with required: true', () => {
    const items = [
      item('flag', 'boolean'),
      item('detail', 'string', { required: true, notAllowedWhen: equals('flag', bool(false)) }),
    ];
    expect(evaluate(items, { flag: [bool(false)] }).questions).toEqual([]);
    expect(evaluate(items, { flag: [bool(true)] }).questions.map((question) => question.linkId)).toEqual([
      'detail',
    ]);
  });

  it('uses the textWhen text in the question message', () => {
    const items = [
      item('kind', 'string'),
      item('q', 'string', {
        required: true,
        textWhen: { cases: [{ when: equals('kind', str('child')), text: 'Guardian name' }] },
      }),
    ];
    expect(evaluate(items, { kind: [str('child')] }).questions[0]?.message).toBe(
      'An answer is required: Guardian name',
    );
  });
});

describe('evaluateRequirements: notAllowedWhen', () => {
  const items = [
    item('smoker', 'boolean'),
    item('packs', 'decimal', { notAllowedWhen: { not: equals('smoker', bool(true)) } }),
    item('heavy', 'string', { requiredWhen: { linkId: 'packs', operator: '>', answer: num(1) } }),
  ];

  it('reports an answer to an item that is not allowed', () => {
    const result = evaluate(items, { smoker: [bool(false)], packs: [num(2)] });
    expect(issueCodes(result)).toEqual(['packs:answer_not_allowed']);
  });

  it('does not validate the answer of an item that is not allowed', () => {
    const result = evaluate(items, { smoker: [bool(false)], packs: [str('two'), str('three')] });
    expect(issueCodes(result)).toEqual(['packs:answer_not_allowed']);
  });

  it('makes conditions read an item that is not allowed as unanswered', () => {
    // packs > 1 would require "heavy", but packs is not allowed, so it reads as unanswered.
    const result = evaluate(items, { smoker: [bool(false)], packs: [num(2)] });
    expect(result.questions).toEqual([]);
    expect(evaluate(items, { smoker: [bool(true)], packs: [num(2)] }).questions.map((q) => q.linkId)).toEqual(
      ['heavy'],
    );
  });

  it('propagates through chains whatever the template order', () => {
    // c depends on b depends on a, listed backwards so template order is not dependency order.
    const chain = [
      item('c', 'string', { required: true, notAllowedWhen: { not: answered('b') } }),
      item('b', 'string', { notAllowedWhen: { not: answered('a') } }),
      item('a', 'string'),
    ];
    expect(evaluate(chain, { b: [str('x')] })).toEqual({
      questions: [],
      documents: [],
      issues: [{ code: 'answer_not_allowed', message: expect.any(String), field: 'b', severity: 'error' }],
    });
    expect(evaluate(chain, { a: [str('x')], b: [str('x')] }).questions.map((q) => q.linkId)).toEqual(['c']);
  });

  it('treats "!=" on a disallowed item as satisfied (it reads as unanswered)', () => {
    const items2 = [
      item('gate', 'boolean'),
      item('choice', 'coding', { notAllowedWhen: { not: equals('gate', bool(true)) } }),
      item('follow', 'string', {
        required: true,
        notAllowedWhen: { not: { linkId: 'choice', operator: '!=', answer: code('X') } },
      }),
    ];
    // choice = X, but choice is not allowed, so "choice != X" holds and follow is allowed and required.
    const result = evaluate(items2, { choice: [code('X')] });
    expect(result.questions.map((q) => q.linkId)).toEqual(['follow']);
    expect(issueCodes(result)).toEqual(['choice:answer_not_allowed']);
  });
});

describe('evaluateRequirements: issues', () => {
  type Row = [string, QuestionnaireItemTemplate, Answer[]];
  const rows: Row[] = [
    ['answer_type_mismatch', item('q', 'decimal'), [str('5')]],
    ['answer_type_mismatch', item('q', 'string'), [num(5)]],
    ['answer_type_mismatch', item('q', 'boolean'), [str('true')]],
    ['answer_type_mismatch', item('q', 'date'), [num(20200101)]],
    ['answer_type_mismatch', item('q', 'coding'), [str('A')]],
    ['answer_type_mismatch', item('q', 'string'), [{}]],
    ['answer_type_mismatch', item('q', 'string'), [{ valueString: 'a', valueDecimal: 1 }]],
    ['answer_type_mismatch', item('q', 'decimal'), [{ valueDecimal: Number.NaN }]],
    ['answer_type_mismatch', item('q', 'coding'), [{ valueCoding: { code: '' } }]],
    ['pattern_mismatch', item('q', 'string', { pattern: '\\d{3}' }), [str('12a')]],
    ['pattern_mismatch', item('q', 'string', { pattern: '\\d{3}' }), [str('1234')]],
    ['max_length_exceeded', item('q', 'string', { maxLength: 3 }), [str('abcd')]],
    ['min_length_not_met', item('q', 'string', { minLength: 3 }), [str('ab')]],
    [
      'unit_not_allowed',
      item('q', 'decimal', {
        valueType: 'quantity',
        units: [{ code: 'L/min', display: 'liters per minute' }],
      }),
      [{ valueQuantity: { value: 2, unit: 'mg' } }],
    ],
    ['answer_type_mismatch', item('q', 'decimal', { valueType: 'integer' }), [num(2.5)]],
    ['answer_type_mismatch', item('q', 'decimal', { valueType: 'integer' }), [{ valueInteger: 2.5 }]],
    ['answer_type_mismatch', item('q', 'decimal'), [{ valueQuantity: { value: 2 } }]],
    ['answer_type_mismatch', item('q', 'string'), [{ valueTime: '10:00' }]],
    ['answer_type_mismatch', item('q', 'date'), [{ valueDateTime: '2020-01-01T10:00:00Z' }]],
    ['pattern_mismatch', item('q', 'string', { valueType: 'time' }), [{ valueTime: '25:00' }]],
    ['invalid_date', item('q', 'date', { valueType: 'dateTime' }), [{ valueDateTime: '2020-02-30T10:00' }]],
    [
      'below_min',
      item('q', 'decimal', { valueType: 'quantity', min: '1' }),
      [{ valueQuantity: { value: 0.5 } }],
    ],
    ['below_min', item('q', 'decimal', { min: '1.5' }), [num(1.49)]],
    ['above_max', item('q', 'decimal', { max: '10' }), [num(10.01)]],
    ['below_min', item('q', 'date', { min: '2020-01-01' }), [date('2019-12-31')]],
    ['above_max', item('q', 'date', { max: '2020-01-01' }), [date('2020-01-02')]],
    ['invalid_date', item('q', 'date'), [date('2023-02-29')]],
    ['invalid_date', item('q', 'date'), [date('2023-13-01')]],
    ['invalid_date', item('q', 'date'), [date('2023-1-1')]],
    ['invalid_date', item('q', 'date'), [date('2023-01-01T10:00:00Z')]],
    ['option_not_allowed', item('q', 'coding', { options: [{ code: 'A', display: 'A' }] }), [code('B')]],
    ['too_many_answers', item('q', 'string'), [str('a'), str('b')]],
  ];

  it.each(rows)('%s for %j answered %j', (expected, questionItem, answers) => {
    const result = evaluate([questionItem], { q: answers });
    expect(result.issues).toEqual([
      { code: expected, message: expect.any(String), field: 'q', severity: 'error' },
    ]);
  });

  it.each([
    ['string', item('q', 'string', { pattern: '\\d{3}', maxLength: 3 }), [str('123')]],
    ['string with emoji counted as characters', item('q', 'string', { maxLength: 2 }), [str('😀😀')]],
    ['decimal at the bounds', item('q', 'decimal', { min: '1', max: '2' }), [num(1)]],
    ['date at the bounds', item('q', 'date', { min: '2020-01-01', max: '2020-12-31' }), [date('2020-12-31')]],
    ['leap day', item('q', 'date'), [date('2024-02-29')]],
    ['boolean', item('q', 'boolean'), [bool(false)]],
    [
      'coding among options',
      item('q', 'coding', { options: [{ code: 'A', display: 'A' }] }),
      [code('A', 'any')],
    ],
    ['coding without options', item('q', 'coding'), [code('anything')]],
    ['several answers when repeating', item('q', 'string', { repeats: true }), [str('a'), str('b')]],
    [
      'free text on an optionsOrString item',
      item('q', 'coding', { options: [{ code: 'A', display: 'A' }], answerConstraint: 'optionsOrString' }),
      [str('something else')],
    ],
  ] as Array<[string, QuestionnaireItemTemplate, Answer[]]>)(
    'no issue for a valid %s',
    (_label, questionItem, answers) => {
      expect(evaluate([questionItem], { q: answers }).issues).toEqual([]);
    },
  );

  it.each([
    [
      'a valueInteger on an integer item',
      item('q', 'decimal', { valueType: 'integer' }),
      [{ valueInteger: 3 }],
    ],
    ['a whole valueDecimal on an integer item', item('q', 'decimal', { valueType: 'integer' }), [num(3)]],
    ['a valueInteger on a decimal item', item('q', 'decimal'), [{ valueInteger: 3 }]],
    [
      'a valueQuantity with an allowed unit',
      item('q', 'decimal', { valueType: 'quantity', units: [{ code: 'L/min' }] }),
      [{ valueQuantity: { value: 2.5, unit: 'L/min' } }],
    ],
    ['a valueTime on a time item', item('q', 'string', { valueType: 'time' }), [{ valueTime: '13:30:00' }]],
    [
      'a valueDateTime on a dateTime item',
      item('q', 'date', { valueType: 'dateTime', min: '2020-01-01' }),
      [{ valueDateTime: '2020-05-01T10:00:00+02:00' }],
    ],
    ['a valueDate on a dateTime item', item('q', 'date', { valueType: 'dateTime' }), [date('2020-05-01')]],
  ] as Array<[string, QuestionnaireItemTemplate, Answer[]]>)(
    'no issue for %s',
    (_label, questionItem, answers) => {
      expect(evaluate([questionItem], { q: answers }).issues).toEqual([]);
    },
  );

  it('compares refined answers in conditions by their value (integer, quantity, time, dateTime)', () => {
    const gated = (source: QuestionnaireItemTemplate, when: Condition) => [
      source,
      item('f', 'string', { required: true, notAllowedWhen: { not: when } }),
    ];
    const asked = (items: QuestionnaireItemTemplate[], answers: Answer[]) =>
      evaluate(items, { q: answers }).questions.map((question) => question.linkId);
    const integerItems = gated(item('q', 'decimal', { valueType: 'integer' }), {
      linkId: 'q',
      operator: '>',
      answer: { valueInteger: 4 },
    });
    expect(asked(integerItems, [{ valueInteger: 5 }])).toEqual(['f']);
    expect(asked(integerItems, [{ valueInteger: 4 }])).toEqual([]);
    const quantityItems = gated(item('q', 'decimal', { valueType: 'quantity' }), {
      linkId: 'q',
      operator: '>=',
      answer: num(2),
    });
    expect(asked(quantityItems, [{ valueQuantity: { value: 2, unit: 'L/min' } }])).toEqual(['f']);
    const timeItems = gated(item('q', 'string', { valueType: 'time' }), {
      linkId: 'q',
      operator: '<',
      answer: { valueTime: '12:00' },
    });
    expect(asked(timeItems, [{ valueTime: '09:30' }])).toEqual(['f']);
    const dateTimeItems = gated(item('q', 'date', { valueType: 'dateTime' }), {
      linkId: 'q',
      operator: '=',
      answer: date('2020-05-01'),
    });
    expect(asked(dateTimeItems, [{ valueDateTime: '2020-05-01T23:00:00Z' }])).toEqual(['f']);
  });

  it('ignores an entry without answers for an unknown linkId (it clears nothing)', () => {
    expect(evaluate([item('a', 'string')], { zzz: [] }).issues).toEqual([]);
  });

  it('reports unknown linkIds after the template items, once each', () => {
    const result = evaluate([item('a', 'string', { maxLength: 1 })], {
      item: [
        { linkId: 'zzz', answer: [str('x')] },
        { linkId: 'a', answer: [str('too long')] },
        { linkId: 'zzz', answer: [] },
      ],
    });
    expect(issueCodes(result)).toEqual(['a:max_length_exceeded', 'zzz:unknown_link_id']);
  });

  it('reports each code once per item, in the order met', () => {
    const questionItem = item('q', 'string', { repeats: true, maxLength: 2, pattern: '[a-z]+' });
    const result = evaluate([questionItem], { q: [str('abc'), num(1), str('ABC'), str('abcd')] });
    expect(issueCodes(result)).toEqual([
      'q:max_length_exceeded',
      'q:answer_type_mismatch',
      'q:pattern_mismatch',
    ]);
  });

  it('keeps template order across groups', () => {
    const result = evaluateRequirements(
      template([item('b', 'decimal', { required: true })], [item('a', 'decimal', { required: true })]),
      [],
      response({ a: [str('x')] }),
      [],
    );
    expect(result.questions.map((q) => q.linkId)).toEqual(['b']);
    expect(issueCodes(result)).toEqual(['a:answer_type_mismatch']);
  });

  it('uses errorMessage for value problems but not for structural ones', () => {
    const questionItem = item('q', 'string', { pattern: '\\d+', errorMessage: 'Use digits only.' });
    expect(evaluate([questionItem], { q: [str('x')] }).issues[0]?.message).toBe('Use digits only.');
    expect(evaluate([questionItem], { q: [str('1'), str('2')] }).issues[0]?.message).not.toBe(
      'Use digits only.',
    );
  });

  it('concatenates several response entries for one linkId', () => {
    const result = evaluate([item('q', 'string')], {
      item: [
        { linkId: 'q', answer: [str('a')] },
        { linkId: 'q', answer: [str('b')] },
      ],
    });
    expect(issueCodes(result)).toEqual(['q:too_many_answers']);
  });

  it('never echoes answer values in messages', () => {
    const secret = 'SSN-123-45-6789';
    const items = [
      item('s', 'string', { pattern: '\\d+', maxLength: 3 }),
      item('d', 'decimal', { max: '1' }),
      item('c', 'coding', { options: [{ code: 'A', display: 'A' }] }),
      item('x', 'date'),
      item('n', 'string', { notAllowedWhen: answered('s') }),
    ];
    const result = evaluate(items, {
      s: [str(secret)],
      d: [num(987654321)],
      c: [code(secret)],
      x: [date(secret)],
      n: [str(secret)],
      [secret]: [str(secret)],
    });
    const text = result.issues.map((issue) => issue.message).join('\n');
    expect(result.issues.length).toBeGreaterThanOrEqual(6);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('987654321');
  });

  it('exposes every issue code it can produce', () => {
    expect([...REQUIREMENT_ISSUE_CODES].sort()).toEqual(
      [
        ...new Set(
          rows
            .map(([issueCode]) => issueCode)
            .concat('answer_not_allowed', 'unknown_link_id', 'instance_not_allowed'),
        ),
      ].sort(),
    );
  });
});

describe('evaluateRequirements: group rules', () => {
  const items = [
    item('a', 'string'),
    item('b', 'string'),
    item('gate', 'boolean'),
    item('c', 'string', { repeats: true }),
  ];
  const withRules = (groupRules: QuestionnaireGroupRule[]) => ({ ...template(items), groupRules });
  const asked = (form: QuestionnaireTemplate, answers: Record<string, Answer[]>) =>
    evaluateRequirements(form, [], response(answers), []).questions.map((question) => question.linkId);

  it('asks a required group until one of its items is answered', () => {
    const form = withRules([{ linkId: 'g', text: 'Either', required: true, linkIds: ['a', 'b'] }]);
    expect(asked(form, {})).toEqual(['g']);
    expect(evaluateRequirements(form, [], response({}), []).questions[0]?.message).toContain('Either');
    expect(asked(form, { b: [str('x')] })).toEqual([]);
  });

  it('asks a conditionally required group only while its condition holds', () => {
    const form = withRules([
      { linkId: 'g', text: 'G', requiredWhen: equals('gate', bool(true)), linkIds: ['a'] },
    ]);
    expect(asked(form, {})).toEqual([]);
    expect(asked(form, { gate: [bool(true)] })).toEqual(['g']);
  });

  it('does not ask a required group while a question inside it is asked', () => {
    const form = {
      ...template([item('a', 'string', { required: true }), item('b', 'string')]),
      groupRules: [{ linkId: 'g', text: 'G', required: true, linkIds: ['a', 'b'] }],
    };
    expect(asked(form, {})).toEqual(['a']);
  });

  it('accepts several answers to an item of a repeating group (one per instance)', () => {
    const form = withRules([{ linkId: 'g', text: 'G', repeats: true, linkIds: ['c'] }]);
    expect(evaluateRequirements(form, [], response({ c: [str('1'), str('2')] }), []).issues).toEqual([]);
  });

  it('rejects an item inside two repeating groups', () => {
    const form = withRules([
      { linkId: 'g1', text: 'G1', repeats: true, linkIds: ['c'] },
      { linkId: 'g2', text: 'G2', repeats: true, linkIds: ['c'] },
    ]);
    expect(() => asked(form, {})).toThrow('inside two repeating groups');
  });
  it.each([
    [[{ linkId: 'a', text: 'A', linkIds: [] }], 'linkId is used more than once'],
    [[{ linkId: 'g', text: 'G', linkIds: ['nope'] }], 'unknown item "nope"'],
    [[{ linkId: 'g', text: 'G', required: 'yes', linkIds: [] }], 'required must be a boolean'],
  ] as unknown as Array<[QuestionnaireGroupRule[], string]>)(
    'rejects an invalid group rule (%#)',
    (rules, message) => {
      expect(() => asked(withRules(rules), {})).toThrow(message);
    },
  );
});

describe('evaluateRequirements: valuesWhen', () => {
  const items = [
    item('plan', 'string'),
    item('tier', 'coding', {
      options: [
        { code: 'basic', display: 'Basic' },
        { code: 'plus', display: 'Plus' },
        { code: 'max', display: 'Max' },
      ],
      valuesWhen: {
        cases: [
          { when: equals('plan', str('hmo')), values: ['basic'] },
          { when: answered('plan'), values: ['basic', 'plus'] },
        ],
      },
    }),
  ];

  it.each([
    ['the first matching case', { plan: [str('hmo')], tier: [code('plus')] }, ['tier:option_not_allowed']],
    ['the first matching case (allowed)', { plan: [str('hmo')], tier: [code('basic')] }, []],
    ['a later case', { plan: [str('ppo')], tier: [code('plus')] }, []],
    ['a later case (not allowed)', { plan: [str('ppo')], tier: [code('max')] }, ['tier:option_not_allowed']],
    ['all options when no case holds', { tier: [code('max')] }, []],
    ['options still when no case holds', { tier: [code('gold')] }, ['tier:option_not_allowed']],
  ])('applies %s', (_label, answers: Record<string, Answer[]>, expected) => {
    expect(issueCodes(evaluate(items, answers))).toEqual(expected);
  });
});

describe('evaluateRequirements: documents', () => {
  const items = [item('surgery', 'boolean')];
  const documents: DocumentRequirement[] = [
    { type: 'clinical_notes', label: 'Clinical notes', message: 'Attach clinical notes.' },
    {
      type: 'operative_report',
      label: 'Operative report',
      message: 'Attach the operative report.',
      requiredWhen: equals('surgery', bool(true)),
    },
  ];

  it.each([
    ['nothing attached, condition false', { surgery: [bool(false)] }, [], ['clinical_notes']],
    [
      'nothing attached, condition true',
      { surgery: [bool(true)] },
      [],
      ['clinical_notes', 'operative_report'],
    ],
    ['all attached', { surgery: [bool(true)] }, ['operative_report', 'clinical_notes'], []],
    ['one attached', { surgery: [bool(true)] }, ['clinical_notes', 'other'], ['operative_report']],
  ])('%s', (_label, answers: Record<string, Answer[]>, attached: string[], expected) => {
    const result = evaluate(items, answers, documents, attached);
    expect(result.documents.map((document) => document.type)).toEqual(expected);
  });

  it('carries the requirement message', () => {
    expect(evaluate(items, {}, documents).documents).toEqual([
      { type: 'clinical_notes', message: 'Attach clinical notes.' },
    ]);
  });

  it('reads items that are not allowed as unanswered', () => {
    const gated = [
      item('gate', 'boolean'),
      item('surgery', 'boolean', { notAllowedWhen: { not: answered('gate') } }),
    ];
    const result = evaluate(gated, { surgery: [bool(true)] }, documents, ['clinical_notes']);
    expect(result.documents).toEqual([]);
  });
});

describe('evaluateRequirements: robustness', () => {
  it('does not throw on malformed response shapes', () => {
    const items = [item('a', 'string', { required: true })];
    const malformed = [
      {},
      { item: 'nope' },
      { item: [null, 1, 'x', { linkId: 5, answer: [] }, { linkId: 'a', answer: 'nope' }, { linkId: 'a' }] },
      { item: [{ linkId: 'a', answer: [null, 1, 'x', [], { valueCoding: null }] }] },
    ];
    for (const shape of malformed) {
      expect(() =>
        evaluateRequirements(template(items), [], shape as unknown as QuestionnaireResponse, []),
      ).not.toThrow();
    }
    const result = evaluateRequirements(
      template(items),
      [],
      { item: [{ linkId: 'a', answer: [null] }] } as never,
      [],
    );
    expect(issueCodes(result)).toEqual(['a:answer_type_mismatch']);
  });
});

/*
 * Property tests. The oracle below is a deliberately naive recursive reading of the rules (allowed-ness
 * memoised per linkId, conditions reading disallowed items as unanswered); the engine's topological,
 * compiled evaluation must agree with it on random acyclic forms and random answers.
 */
describe('evaluateRequirements: properties', () => {
  const SIZE = 8;
  const linkIdOf = (index: number) => `q${index}`;

  // Conditions only read items with a lower index, which keeps every generated form acyclic.
  const leafArb = (below: number): fc.Arbitrary<Condition> =>
    fc.integer({ min: 0, max: below - 1 }).chain((target) =>
      fc.oneof(
        fc.boolean().map((exists): Condition => ({ linkId: linkIdOf(target), operator: 'exists', exists })),
        fc
          .tuple(fc.constantFrom('=', '!=', '>', '<', '>=', '<=' as const), fc.integer({ min: 0, max: 3 }))
          .map(([operator, value]): Condition => ({
            linkId: linkIdOf(target),
            operator,
            answer: num(value),
          })),
      ),
    );
  const conditionArb = (below: number): fc.Arbitrary<Condition> =>
    fc.oneof(
      { depthSize: 'small' },
      leafArb(below),
      fc.array(leafArb(below), { maxLength: 3 }).map((all): Condition => ({ all })),
      fc.array(leafArb(below), { maxLength: 3 }).map((any): Condition => ({ any })),
      leafArb(below).map((not): Condition => ({ not })),
    );
  const itemArb = (index: number): fc.Arbitrary<QuestionnaireItemTemplate> =>
    fc
      .record({
        required: fc.boolean(),
        repeats: fc.boolean(),
        notAllowedWhen:
          index === 0 ? fc.constant(undefined) : fc.option(conditionArb(index), { nil: undefined }),
        requiredWhen:
          index === 0 ? fc.constant(undefined) : fc.option(conditionArb(index), { nil: undefined }),
        max: fc.option(fc.constantFrom('1', '2'), { nil: undefined }),
      })
      .map((extra) => {
        const built = item(linkIdOf(index), 'decimal', { required: extra.required, repeats: extra.repeats });
        if (extra.notAllowedWhen) built.notAllowedWhen = extra.notAllowedWhen;
        if (extra.requiredWhen) built.requiredWhen = extra.requiredWhen;
        if (extra.max) built.max = extra.max;
        return built;
      });
  const formArb = fc
    .tuple(...Array.from({ length: SIZE }, (_unused, index) => itemArb(index)))
    .chain((items) => fc.shuffledSubarray(items, { minLength: SIZE, maxLength: SIZE }));

  const answerArb: fc.Arbitrary<Answer> = fc.oneof(
    fc.integer({ min: 0, max: 3 }).map(num),
    fc.string({ maxLength: 3 }).map(str),
    fc.boolean().map(bool),
    fc.constant({} as Answer),
    fc.anything() as fc.Arbitrary<Answer>,
  );
  const answersArb = fc.dictionary(
    fc.oneof(
      fc.constantFrom(...Array.from({ length: SIZE }, (_unused, index) => linkIdOf(index))),
      fc.string(),
    ),
    fc.array(answerArb, { maxLength: 3 }),
  );

  function oracle(items: QuestionnaireItemTemplate[], answers: Record<string, Answer[]>) {
    const byId = new Map(items.map((entry) => [entry.linkId, entry]));
    const allowedMemo = new Map<string, boolean>();
    const given = (linkId: string): Answer[] =>
      Object.prototype.hasOwnProperty.call(answers, linkId) ? (answers[linkId] ?? []) : [];
    const seen = (linkId: string): Answer[] => (allowed(linkId) ? given(linkId) : []);
    const holds = (condition: Condition): boolean => {
      if ('all' in condition) return condition.all.every(holds);
      if ('any' in condition) return condition.any.some(holds);
      if ('not' in condition) return !holds(condition.not);
      const values = seen(condition.linkId);
      if (condition.operator === 'exists') return values.length > 0 === condition.exists;
      const target = condition.answer.valueDecimal as number;
      const numbers = values
        .map((value: unknown) =>
          typeof value === 'object' && value !== null ? (value as Answer).valueDecimal : undefined,
        )
        .filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
      switch (condition.operator) {
        case '=':
          return numbers.some((value) => value === target);
        case '!=':
          return !numbers.some((value) => value === target);
        case '>':
          return numbers.some((value) => value > target);
        case '<':
          return numbers.some((value) => value < target);
        case '>=':
          return numbers.some((value) => value >= target);
        case '<=':
          return numbers.some((value) => value <= target);
      }
    };
    function allowed(linkId: string): boolean {
      const memo = allowedMemo.get(linkId);
      if (memo !== undefined) return memo;
      const condition = byId.get(linkId)?.notAllowedWhen;
      const result = condition === undefined || !holds(condition);
      allowedMemo.set(linkId, result);
      return result;
    }
    const questions = items
      .filter((entry) => allowed(entry.linkId) && given(entry.linkId).length === 0)
      .filter((entry) => entry.required || (entry.requiredWhen !== undefined && holds(entry.requiredWhen)))
      .map((entry) => entry.linkId);
    const notAllowed = items
      .filter((entry) => !allowed(entry.linkId) && given(entry.linkId).length > 0)
      .map((entry) => entry.linkId);
    return { questions, notAllowed };
  }

  it('agrees with a naive recursive evaluation and never throws', () => {
    fc.assert(
      fc.property(formArb, answersArb, (items, answers) => {
        const result = evaluateRequirements(template(items), [], response(answers), []);
        const expected = oracle(items, answers);
        expect(result.questions.map((question) => question.linkId)).toEqual(expected.questions);
        expect(
          result.issues.filter((issue) => issue.code === 'answer_not_allowed').map((issue) => issue.field),
        ).toEqual(expected.notAllowed);
      }),
      { numRuns: 300 },
    );
  });

  it('only asks for required, allowed, unanswered items and uses only known issue codes', () => {
    fc.assert(
      fc.property(formArb, answersArb, (items, answers) => {
        const result = evaluateRequirements(template(items), [], response(answers), []);
        const flagged = new Set(result.issues.map((issue) => issue.field));
        for (const question of result.questions) {
          expect(answers[question.linkId] ?? []).toHaveLength(0);
          expect(flagged.has(question.linkId)).toBe(false);
        }
        for (const issue of result.issues) {
          expect(REQUIREMENT_ISSUE_CODES).toContain(issue.code);
          expect(issue.severity).toBe('error');
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('evaluateRequirements: repeating group instances', () => {
  // A repeating group "devices" with a required name, an optional serial and a count only asked for pumps.
  const form: QuestionnaireTemplate = {
    ...template([
      item('outside', 'boolean'),
      item('name', 'string', { required: true, maxLength: 5 }),
      item('kind', 'coding', {
        options: [
          { code: 'pump', display: 'Pump' },
          { code: 'meter', display: 'Meter' },
        ],
      }),
      item('count', 'decimal', {
        required: true,
        notAllowedWhen: { not: equals('kind', code('pump')) },
      }),
      item('afterwards', 'string', { required: true, notAllowedWhen: { not: equals('kind', code('pump')) } }),
    ]),
    groupRules: [{ linkId: 'devices', text: 'Devices', repeats: true, linkIds: ['name', 'kind', 'count'] }],
  };
  const at = (linkId: string, instance: number | undefined, answer: Answer[]) => ({
    linkId,
    ...(instance === undefined ? {} : { instance }),
    answer,
  });
  const run = (items: QuestionnaireResponse['item']) => evaluateRequirements(form, [], { item: items }, []);
  const where = (entries: Array<{ linkId?: string; field?: string; instance?: number; code?: string }>) =>
    entries.map(
      (entry) =>
        `${entry.linkId ?? entry.field ?? ''}@${String(entry.instance)}${entry.code ? `:${entry.code}` : ''}`,
    );

  it('asks the questions of the first instance while the group has no answer', () => {
    expect(where(run([]).questions)).toEqual(['name@0']);
  });

  it('asks and validates each instance on its own answers', () => {
    const result = run([
      at('name', 0, [str('ok')]),
      at('kind', 0, [code('pump')]),
      at('kind', 1, [code('meter')]),
      at('name', 2, [str('too long')]),
    ]);
    expect(where(result.questions)).toEqual(['name@1', 'count@0', 'afterwards@undefined']);
    expect(where(result.issues)).toEqual(['name@2:max_length_exceeded']);
  });

  it('takes one answer per instance, and refuses two in one instance', () => {
    expect(run([at('name', 0, [str('a')]), at('name', 1, [str('b')])]).issues).toEqual([]);
    expect(where(run([at('name', 1, [str('a'), str('b')])]).issues)).toEqual(['name@1:too_many_answers']);
  });

  it('reads a condition inside the group in the same instance, and across instances from outside it', () => {
    const result = run([
      at('name', 0, [str('a')]),
      at('kind', 0, [code('meter')]),
      at('count', 0, [num(2)]),
      at('name', 1, [str('b')]),
      at('kind', 1, [code('pump')]),
      at('count', 1, [num(3)]),
      at('afterwards', undefined, [str('x')]),
    ]);
    expect(where(result.issues)).toEqual(['count@0:answer_not_allowed']);
    expect(result.questions).toEqual([]);
  });

  it('reads answers without an instance as the first instance', () => {
    expect(where(run([at('name', undefined, [str('a')]), at('name', 1, [str('bbbbbb')])]).issues)).toEqual([
      'name@1:max_length_exceeded',
    ]);
  });

  it.each([
    ['a question outside any repeating group', at('outside', 0, [bool(true)])],
    ['an instance out of range', at('name', 100, [str('a')])],
    ['an instance that is not a whole number', at('name', 1.5, [str('a')])],
  ])('reports %s as instance_not_allowed', (_label, entry) => {
    expect(where(run([at('name', 0, [str('a')]), entry]).issues)).toEqual([
      `${entry.linkId}@undefined:instance_not_allowed`,
    ]);
  });

  it('counts a required repeating group as answered by any instance', () => {
    const required: QuestionnaireTemplate = {
      ...template([item('x', 'string'), item('y', 'string')]),
      groupRules: [{ linkId: 'g', text: 'G', repeats: true, required: true, linkIds: ['x', 'y'] }],
    };
    const ask = (items: QuestionnaireResponse['item']) =>
      evaluateRequirements(required, [], { item: items }, []).questions.map((question) => question.linkId);
    expect(ask([])).toEqual(['g']);
    expect(ask([{ linkId: 'y', instance: 3, answer: [str('a')] }])).toEqual([]);
  });

  it('evaluates each instance as the same form answered once with that instance’s answers (property)', () => {
    const inside = new Set(['name', 'kind', 'count']);
    const plain: QuestionnaireTemplate = { ...form, groupRules: [] };
    const instanceArb = fc.record(
      {
        name: fc.array(fc.constantFrom('ok', 'too long'), { minLength: 1, maxLength: 2 }),
        kind: fc.constantFrom('pump', 'meter', 'other'),
        count: fc.integer({ min: 0, max: 3 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.option(fc.boolean(), { nil: undefined }),
        fc.array(fc.option(instanceArb, { nil: undefined }), { maxLength: 4 }),
        (outside, instances) => {
          const shared: QuestionnaireResponse['item'] =
            outside === undefined ? [] : [{ linkId: 'outside', answer: [bool(outside)] }];
          const entriesOf = (answers: NonNullable<(typeof instances)[number]>) => [
            ...(answers.name ? [{ linkId: 'name', answer: answers.name.map(str) }] : []),
            ...(answers.kind ? [{ linkId: 'kind', answer: [code(answers.kind)] }] : []),
            ...(answers.count !== undefined ? [{ linkId: 'count', answer: [num(answers.count)] }] : []),
          ];
          const all = [
            ...shared,
            ...instances.flatMap((answers, instance) =>
              answers ? entriesOf(answers).map((entry) => ({ ...entry, instance })) : [],
            ),
          ];
          const result = evaluateRequirements(form, [], { item: all }, []);
          const present = instances.flatMap((answers, instance) =>
            answers && entriesOf(answers).length > 0 ? [instance] : [],
          );
          for (const instance of present.length > 0 ? present : [0]) {
            const answers = instances[instance];
            const alone = evaluateRequirements(
              plain,
              [],
              { item: [...shared, ...(answers ? entriesOf(answers) : [])] },
              [],
            );
            const mine = <T extends { instance?: number }>(entries: T[]) =>
              entries
                .filter((entry) => entry.instance === instance)
                .map(({ instance: _drop, ...rest }) => rest);
            expect(mine(result.questions)).toEqual(
              alone.questions.filter((question) => inside.has(question.linkId)),
            );
            expect(mine(result.issues)).toEqual(alone.issues.filter((issue) => inside.has(issue.field)));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
