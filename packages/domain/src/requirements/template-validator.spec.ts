import { DomainError } from '../shared/domain-error';
import type {
  Condition,
  DocumentRequirement,
  QuestionnaireItemTemplate,
  QuestionnaireTemplate,
} from './questionnaire.types';
import { evaluateRequirements } from './requirements-engine';
import { compileTemplate } from './template-compiler';
import type { TemplateProblem } from './template-problem';
import { validateTemplate } from './template-validator';
import { code, item, num, str, template } from './testing/template-builder';

const answered = (linkId: string): Condition => ({ linkId, operator: 'exists', exists: true });

function problemsOf(run: () => void): TemplateProblem[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('template_invalid');
    return (error as DomainError).details['problems'] as TemplateProblem[];
  }
  throw new Error('expected template_invalid');
}

describe('validateTemplate', () => {
  it('accepts a valid template with every feature', () => {
    const valid = template(
      [
        item('kind', 'coding', {
          required: true,
          options: [
            { code: 'a', display: 'A' },
            { code: 'b', display: 'B' },
          ],
          defaultValue: code('a'),
          valuesWhen: { cases: [{ when: answered('age'), values: ['a'] }] },
        }),
        item('age', 'decimal', { min: '0', max: '130', requiredWhen: answered('kind') }),
      ],
      [
        item('since', 'date', { min: '2000-01-01', notAllowedWhen: { not: answered('age') } }),
        item('note', 'string', {
          pattern: '[A-Z]+',
          maxLength: 10,
          textWhen: { cases: [{ when: answered('since'), text: 'Note since' }] },
          answerConstraint: 'optionsOnly',
        }),
      ],
    );
    expect(() =>
      validateTemplate(valid, [{ type: 'x', label: 'X', message: 'M', requiredWhen: answered('age') }]),
    ).not.toThrow();
  });

  it('names the item and the unknown linkId a condition reads', () => {
    const invalid = template([
      item('a', 'string'),
      item('b', 'string', { notAllowedWhen: answered('missing') }),
    ]);
    let thrown: unknown;
    try {
      validateTemplate(invalid);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    const error = thrown as DomainError;
    expect(error.code).toBe('template_invalid');
    expect(error.message).toContain('"b"');
    expect(error.message).toContain('"missing"');
    expect(error.details).toMatchObject({
      templateId: 'test-template',
      linkId: 'b',
      problems: [{ code: 'unknown_link_id', linkId: 'b', reference: 'missing' }],
    });
  });

  it.each([
    ['notAllowedWhen', { notAllowedWhen: answered('ghost') }],
    ['requiredWhen', { requiredWhen: answered('ghost') }],
    ['textWhen', { textWhen: { cases: [{ when: answered('ghost'), text: 'T' }] } }],
    [
      'valuesWhen',
      {
        answerType: 'coding',
        options: [{ code: 'a', display: 'A' }],
        valuesWhen: { cases: [{ when: answered('ghost'), values: ['a'] }] },
      },
    ],
    [
      'a nested condition',
      { notAllowedWhen: { all: [answered('a'), { not: { any: [answered('ghost')] } }] } },
    ],
  ] as Array<[string, Partial<QuestionnaireItemTemplate>]>)(
    'rejects an unknown linkId in %s',
    (_label, extra) => {
      const problems = problemsOf(() =>
        validateTemplate(template([item('a', 'string'), item('b', 'string', extra)])),
      );
      expect(problems).toEqual([
        expect.objectContaining({ code: 'unknown_link_id', linkId: 'b', reference: 'ghost' }),
      ]);
    },
  );

  it('rejects an unknown linkId in a document requirement', () => {
    const documents: DocumentRequirement[] = [
      { type: 'notes', label: 'N', message: 'M', requiredWhen: answered('ghost') },
    ];
    const problems = problemsOf(() => validateTemplate(template([item('a', 'string')]), documents));
    expect(problems).toEqual([
      expect.objectContaining({ code: 'unknown_link_id', documentType: 'notes', reference: 'ghost' }),
    ]);
    expect(() => evaluateRequirements(template([item('a', 'string')]), documents, { item: [] }, [])).toThrow(
      DomainError,
    );
  });

  it.each([
    ['a self-reference', [item('a', 'string', { notAllowedWhen: answered('a') })], ['a', 'a']],
    [
      'a two-item cycle',
      [
        item('a', 'string', { notAllowedWhen: answered('b') }),
        item('b', 'string', { notAllowedWhen: answered('a') }),
      ],
      ['a', 'b', 'a'],
    ],
    [
      'a three-item cycle behind a chain',
      [
        item('x', 'string', { notAllowedWhen: answered('a') }),
        item('a', 'string', { notAllowedWhen: { not: answered('c') } }),
        item('b', 'string', { notAllowedWhen: answered('a') }),
        item('c', 'string', { notAllowedWhen: { any: [answered('b'), answered('x')] } }),
      ],
      ['a', 'c', 'b', 'a'],
    ],
  ])('rejects %s among notAllowedWhen conditions', (_label, items, cycle) => {
    const problems = problemsOf(() => validateTemplate(template(items)));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'condition_cycle', linkId: cycle[0] });
    // The cycle is reported as a closed walk along "reads" edges.
    const reported = problems[0]?.cycle ?? [];
    expect(reported[0]).toBe(reported[reported.length - 1]);
    expect(new Set(reported)).toEqual(new Set(cycle));
  });

  it('allows mutual references in requiredWhen ("one of the two is required")', () => {
    const items = [
      item('phone', 'string', { requiredWhen: { not: answered('email') } }),
      item('email', 'string', { requiredWhen: { not: answered('phone') } }),
    ];
    expect(() => validateTemplate(template(items))).not.toThrow();
    const result = evaluateRequirements(template(items), [], { item: [] }, []);
    expect(result.questions.map((question) => question.linkId)).toEqual(['phone', 'email']);
  });

  it.each([
    [
      'duplicate linkIds across groups',
      template([item('a', 'string')], [item('a', 'decimal')]),
      'duplicate_link_id',
      'a',
    ],
    ['an invalid pattern', template([item('a', 'string', { pattern: '([a-z' })]), 'invalid_pattern', 'a'],
    [
      'a pattern only valid once wrapped',
      template([item('a', 'string', { pattern: 'a)(b' })]),
      'invalid_pattern',
      'a',
    ],
    ['a non-numeric decimal bound', template([item('a', 'decimal', { min: 'ten' })]), 'invalid_bound', 'a'],
    ['an invalid date bound', template([item('a', 'date', { max: '2020-02-30' })]), 'invalid_bound', 'a'],
    ['bounds on a string item', template([item('a', 'string', { max: '3' })]), 'invalid_bound', 'a'],
    ['min above max', template([item('a', 'decimal', { min: '5', max: '1' })]), 'invalid_bound', 'a'],
    ['a negative maxLength', template([item('a', 'string', { maxLength: -1 })]), 'invalid_item', 'a'],
    ['an unknown answerType', template([item('a', 'number' as never)]), 'invalid_item', 'a'],
    [
      'duplicate option codes',
      template([
        item('a', 'coding', {
          options: [
            { code: 'x', display: 'X' },
            { code: 'x', display: 'Y' },
          ],
        }),
      ]),
      'invalid_option',
      'a',
    ],
    [
      'a default of the wrong type',
      template([item('a', 'decimal', { defaultValue: str('1') })]),
      'invalid_default_value',
      'a',
    ],
    [
      'a default outside the options',
      template([item('a', 'coding', { options: [{ code: 'x', display: 'X' }], defaultValue: code('y') })]),
      'invalid_default_value',
      'a',
    ],
    [
      'valuesWhen codes that are not options',
      template([
        item('a', 'coding', {
          options: [{ code: 'x', display: 'X' }],
          valuesWhen: { cases: [{ when: answered('a'), values: ['nope'] }] },
        }),
      ]),
      'invalid_condition',
      'a',
    ],
    [
      'a comparison of the wrong type',
      template([
        item('a', 'string'),
        item('b', 'string', { requiredWhen: { linkId: 'a', operator: '=', answer: num(1) } }),
      ]),
      'invalid_condition',
      'b',
    ],
    [
      'an ordering operator on a coding',
      template([
        item('a', 'coding'),
        item('b', 'string', { requiredWhen: { linkId: 'a', operator: '>', answer: code('x') } }),
      ]),
      'invalid_condition',
      'b',
    ],
    [
      'optionsOrString on a non-coding item',
      template([item('a', 'string', { answerConstraint: 'optionsOrString' })]),
      'invalid_item',
      'a',
    ],
  ] as Array<[string, QuestionnaireTemplate, string, string]>)(
    'rejects %s',
    (_label, invalid, problemCode, linkId) => {
      expect(problemsOf(() => validateTemplate(invalid))).toEqual([
        expect.objectContaining({ code: problemCode, linkId }),
      ]);
    },
  );

  it('rejects duplicate group ids and malformed structures', () => {
    const duplicateGroups = template([item('a', 'string')], [item('b', 'string')]);
    duplicateGroups.groups[1]!.id = duplicateGroups.groups[0]!.id;
    expect(problemsOf(() => validateTemplate(duplicateGroups))).toEqual([
      expect.objectContaining({ code: 'duplicate_group_id' }),
    ]);
    expect(problemsOf(() => validateTemplate({ id: 'x' } as never))).toEqual([
      expect.objectContaining({ code: 'invalid_template' }),
    ]);
  });

  it('lists every problem, not only the first', () => {
    const invalid = template([
      item('a', 'string', { pattern: '(' }),
      item('b', 'string', { requiredWhen: answered('ghost') }),
      item('a', 'string'),
    ]);
    const problems = problemsOf(() => validateTemplate(invalid));
    expect(problems.map((problem) => problem.code).sort()).toEqual(
      ['duplicate_link_id', 'invalid_pattern', 'unknown_link_id'].sort(),
    );
  });

  it('compiles each template object once', () => {
    const valid = template([item('a', 'string')]);
    expect(compileTemplate(valid)).toBe(compileTemplate(valid));
  });
});
