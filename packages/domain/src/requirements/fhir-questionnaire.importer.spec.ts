import { DomainError } from '../shared/domain-error';
import {
  importFhirQuestionnaire,
  importFhirQuestionnaireWithWarnings,
  type FhirImportWarning,
} from './fhir-questionnaire.importer';
import type {
  QuestionnaireResponse,
  Answer,
  Condition,
  QuestionnaireItemTemplate,
  QuestionnaireTemplate,
} from './questionnaire.types';
import { presentQuestionnaire } from './questionnaire-presenter';
import { evaluateRequirements } from './requirements-engine';
import type { TemplateProblem } from './template-problem';
import { validateTemplate } from './template-validator';
import { bool, code, date, item, num, response, str } from './testing/template-builder';

type FhirItem = Record<string, unknown>;

const questionnaire = (items: FhirItem[], extra: Record<string, unknown> = {}) => ({
  resourceType: 'Questionnaire',
  id: 'q',
  title: 'Q',
  status: 'draft',
  item: items,
  ...extra,
});

const allItems = (imported: QuestionnaireTemplate): QuestionnaireItemTemplate[] =>
  imported.groups.flatMap((group) => group.items);

function importedItem(fhirItem: FhirItem, extraItems: FhirItem[] = []): QuestionnaireItemTemplate {
  const imported = importFhirQuestionnaire(questionnaire([...extraItems, fhirItem]));
  const found = allItems(imported).find((entry) => entry.linkId === fhirItem['linkId']);
  if (!found) throw new Error('item not imported');
  return found;
}

function problemsOf(json: unknown): TemplateProblem[] {
  try {
    importFhirQuestionnaire(json);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('template_invalid');
    return (error as DomainError).details['problems'] as TemplateProblem[];
  }
  throw new Error('expected template_invalid');
}

describe('importFhirQuestionnaire: item types', () => {
  it.each([
    ['string', 'string'],
    ['text', 'string'],
    ['url', 'string'],
    ['date', 'date'],
    ['dateTime', 'date'],
    ['boolean', 'boolean'],
    ['decimal', 'decimal'],
    ['integer', 'decimal'],
    ['quantity', 'decimal'],
    ['choice', 'coding'],
    ['open-choice', 'coding'],
  ])('maps %s to %s', (type, answerType) => {
    expect(importedItem({ linkId: 'a', text: 'A', type })).toMatchObject({
      linkId: 'a',
      text: 'A',
      answerType,
    });
  });

  it('maps time to a string constrained to hh:mm[:ss]', () => {
    const imported = importedItem({ linkId: 't', type: 'time' });
    expect(imported.answerType).toBe('string');
    const evaluate = (value: string) =>
      evaluateRequirements(
        importFhirQuestionnaire(questionnaire([{ linkId: 't', type: 'time' }])),
        [],
        response({ t: [str(value)] }),
        [],
      ).issues.map((issue) => issue.code);
    expect(evaluate('13:30:00')).toEqual([]);
    expect(evaluate('25:00')).toEqual(['pattern_mismatch']);
  });

  it('marks open-choice items as accepting free text', () => {
    expect(importedItem({ linkId: 'a', type: 'open-choice' }).answerConstraint).toBe('optionsOrString');
    expect(importedItem({ linkId: 'a', type: 'choice' }).answerConstraint).toBeUndefined();
  });

  it.each(['attachment', 'constructor', undefined])('rejects the unsupported type %s', (type) => {
    expect(problemsOf(questionnaire([{ linkId: 'a', type }]))).toEqual([
      expect.objectContaining({ code: 'unsupported_item_type', linkId: 'a' }),
    ]);
  });

  it('maps required, repeats (also given as strings), maxLength and the text', () => {
    expect(
      importedItem({
        linkId: 'a',
        text: 'Name',
        type: 'string',
        required: 'true',
        repeats: true,
        maxLength: 20,
      }),
    ).toEqual({
      linkId: 'a',
      text: 'Name',
      required: true,
      repeats: true,
      answerType: 'string',
      maxLength: 20,
    });
    expect(importedItem({ linkId: 'a', type: 'string' })).toEqual({
      linkId: 'a',
      text: 'a',
      required: false,
      answerType: 'string',
    });
  });
});

describe('importFhirQuestionnaire: options', () => {
  it('takes answerOption codings and strings', () => {
    const coded = importedItem({
      linkId: 'a',
      type: 'choice',
      answerOption: [
        { valueCoding: { system: 's', code: 'x', display: 'Ex' } },
        { valueCoding: { code: 'y' } },
        { valueCoding: { system: 'other', code: 'x', display: 'duplicate code' } },
      ],
    });
    expect(coded.options).toEqual([
      { code: 'x', display: 'Ex' },
      { code: 'y', display: 'y' },
    ]);
    const strings = importedItem({
      linkId: 'b',
      type: 'choice',
      answerOption: [{ valueString: 'Left' }, { valueString: 'Right' }],
    });
    expect(strings.options).toEqual([
      { code: 'Left', display: 'Left' },
      { code: 'Right', display: 'Right' },
    ]);
  });

  it('turns a string, integer or date item with answerOption into a coding item', () => {
    expect(
      importedItem({
        linkId: 'a',
        type: 'integer',
        answerOption: [{ valueInteger: 12 }, { valueInteger: 34 }],
      }),
    ).toMatchObject({
      answerType: 'coding',
      options: [
        { code: '12', display: '12' },
        { code: '34', display: '34' },
      ],
    });
  });

  it('resolves a contained ValueSet (compose or expansion)', () => {
    const contained = [
      {
        resourceType: 'ValueSet',
        id: 'sex',
        compose: {
          include: [
            {
              concept: [
                { code: 'male', display: 'Male' },
                { code: 'female', display: 'Female' },
              ],
            },
          ],
        },
      },
      {
        resourceType: 'ValueSet',
        id: 'expanded',
        expansion: { contains: [{ code: 'a', display: 'A', contains: [{ code: 'a1' }] }, { code: 'b' }] },
      },
    ];
    const imported = importFhirQuestionnaire(
      questionnaire(
        [
          { linkId: 'sex', type: 'choice', answerValueSet: '#sex' },
          { linkId: 'exp', type: 'choice', answerValueSet: '#expanded' },
          { linkId: 'ext', type: 'choice', answerValueSet: 'http://example.org/ValueSet/external' },
        ],
        { contained },
      ),
    );
    const [sex, exp, ext] = allItems(imported);
    expect(sex?.options).toEqual([
      { code: 'male', display: 'Male' },
      { code: 'female', display: 'Female' },
    ]);
    expect(exp?.options?.map((option) => option.code)).toEqual(['a', 'a1', 'b']);
    // External value sets cannot be expanded by pure code: left unconstrained.
    expect(ext?.options).toBeUndefined();
  });

  it('rejects a reference to a missing contained ValueSet', () => {
    expect(problemsOf(questionnaire([{ linkId: 'a', type: 'choice', answerValueSet: '#nope' }]))).toEqual([
      expect.objectContaining({ code: 'invalid_option', linkId: 'a' }),
    ]);
  });

  it('takes initial values and initialSelected options as defaults', () => {
    expect(
      importedItem({
        linkId: 'a',
        type: 'choice',
        answerOption: [{ valueString: 'A' }],
        initial: [{ valueString: 'A' }],
      }).defaultValue,
    ).toEqual(code('A'));
    expect(
      importedItem({ linkId: 'a', type: 'integer', initial: [{ valueInteger: 3 }] }).defaultValue,
    ).toEqual(num(3));
    expect(
      importedItem({ linkId: 'a', type: 'boolean', initial: [{ valueBoolean: false }] }).defaultValue,
    ).toEqual(bool(false));
    expect(
      importedItem({
        linkId: 'a',
        type: 'choice',
        answerOption: [{ valueCoding: { code: 'x' } }, { valueCoding: { code: 'y' }, initialSelected: true }],
      }).defaultValue,
    ).toEqual(code('y'));
  });
});

describe('importFhirQuestionnaire: extensions', () => {
  const ext = (name: string, value: Record<string, unknown>) => ({
    url: `http://hl7.org/fhir/StructureDefinition/${name}`,
    ...value,
  });

  it('maps the regex extension to pattern', () => {
    expect(
      importedItem({ linkId: 'a', type: 'string', extension: [ext('regex', { valueString: '[0-9]{5}' })] })
        .pattern,
    ).toBe('[0-9]{5}');
  });

  it('maps minValue / maxValue to min / max', () => {
    expect(
      importedItem({
        linkId: 'a',
        type: 'integer',
        extension: [ext('minValue', { valueInteger: 0 }), ext('maxValue', { valueDecimal: 99.5 })],
      }),
    ).toMatchObject({ min: '0', max: '99.5' });
    expect(
      importedItem({
        linkId: 'a',
        type: 'date',
        extension: [
          ext('minValue', { valueDate: '2020-01-01' }),
          ext('maxValue', { valueDateTime: '2030-12-31T00:00:00Z' }),
        ],
      }),
    ).toMatchObject({ min: '2020-01-01', max: '2030-12-31' });
  });

  it('rejects an invalid regex through validateTemplate', () => {
    expect(
      problemsOf(
        questionnaire([{ linkId: 'a', type: 'string', extension: [ext('regex', { valueString: '([' })] }]),
      ),
    ).toEqual([expect.objectContaining({ code: 'invalid_pattern', linkId: 'a' })]);
  });

  it('rejects a bound that does not fit the item type', () => {
    expect(
      problemsOf(
        questionnaire([{ linkId: 'a', type: 'date', extension: [ext('minValue', { valueInteger: 3 })] }]),
      ),
    ).toEqual([expect.objectContaining({ code: 'invalid_bound', linkId: 'a' })]);
  });
});

describe('importFhirQuestionnaire: structure', () => {
  it('makes top-level groups groups, flattens nested ones, collects loose questions, skips display items', () => {
    const imported = importFhirQuestionnaire(
      questionnaire([
        { linkId: 'intro', type: 'display', text: 'Read me' },
        {
          linkId: 'g1',
          type: 'group',
          text: 'First',
          item: [
            { linkId: 'a', type: 'string' },
            {
              linkId: 'g1.1',
              type: 'group',
              item: [
                { linkId: 'b', type: 'string' },
                { linkId: 'note', type: 'display' },
              ],
            },
            { linkId: 'c', type: 'string', item: [{ linkId: 'c.1', type: 'string' }] },
          ],
        },
        { linkId: 'loose1', type: 'date' },
        { linkId: 'g2', type: 'group', item: [{ linkId: 'd', type: 'boolean' }] },
        { linkId: 'loose2', type: 'date' },
      ]),
    );
    expect(imported).toMatchObject({ id: 'q', version: '1', title: 'Q' });
    expect(
      imported.groups.map((group) => [group.id, group.title, group.items.map((entry) => entry.linkId)]),
    ).toEqual([
      ['g1', 'First', ['a', 'b', 'c', 'c.1']],
      ['default', 'General', ['loose1', 'loose2']],
      ['g2', 'g2', ['d']],
    ]);
  });

  it('uses import options and avoids a clash with the default group id', () => {
    const imported = importFhirQuestionnaire(
      questionnaire([
        { linkId: 'default', type: 'group', item: [{ linkId: 'a', type: 'string' }] },
        { linkId: 'b', type: 'string' },
      ]),
      { id: 'custom', version: '7', defaultGroupTitle: 'Other' },
    );
    expect(imported).toMatchObject({ id: 'custom', version: '7' });
    expect(imported.groups.map((group) => [group.id, group.title])).toEqual([
      ['default', 'default'],
      ['default-2', 'Other'],
    ]);
  });

  it.each([
    ['not an object', 'nope'],
    ['another resource', { resourceType: 'Patient' }],
  ])('rejects %s', (_label, json) => {
    expect(problemsOf(json)).toEqual([expect.objectContaining({ code: 'invalid_questionnaire' })]);
  });

  it('rejects items without linkId and duplicate linkIds', () => {
    expect(problemsOf(questionnaire([{ type: 'string' }]))).toEqual([
      expect.objectContaining({ code: 'invalid_questionnaire' }),
    ]);
    expect(
      problemsOf(
        questionnaire([
          { linkId: 'a', type: 'string' },
          { linkId: 'g', type: 'group', item: [{ linkId: 'a', type: 'string' }] },
        ]),
      ),
    ).toEqual([expect.objectContaining({ code: 'duplicate_link_id', linkId: 'a' })]);
  });
});

describe('importFhirQuestionnaire: enableWhen', () => {
  const gate = { linkId: 'gate', type: 'boolean' };
  const whenGate = (value: unknown = true) => [{ question: 'gate', operator: '=', answerBoolean: value }];
  const gateTrue: Condition = { linkId: 'gate', operator: '=', answer: bool(true) };

  it('turns enableWhen into notAllowedWhen, and required into requiredWhen', () => {
    expect(
      importedItem({ linkId: 'a', type: 'string', required: true, enableWhen: whenGate() }, [gate]),
    ).toEqual({
      linkId: 'a',
      text: 'a',
      answerType: 'string',
      required: false,
      requiredWhen: gateTrue,
      notAllowedWhen: { not: gateTrue },
    });
    expect(importedItem({ linkId: 'a', type: 'string', enableWhen: whenGate() }, [gate])).toEqual({
      linkId: 'a',
      text: 'a',
      answerType: 'string',
      required: false,
      notAllowedWhen: { not: gateTrue },
    });
  });

  it('tolerates answerBoolean given as the string "true" and reports other strings clearly', () => {
    expect(
      importedItem({ linkId: 'a', type: 'string', enableWhen: whenGate('true') }, [gate]).notAllowedWhen,
    ).toEqual({ not: gateTrue });
    const problems = problemsOf(
      questionnaire([gate, { linkId: 'a', type: 'string', enableWhen: whenGate('yes') }]),
    );
    expect(problems).toEqual([
      expect.objectContaining({ code: 'invalid_condition', linkId: 'a', reference: 'gate' }),
    ]);
    expect(problems[0]?.message).toContain('boolean');
  });

  it.each([
    ['all', 'all'],
    ['any', 'any'],
    [undefined, 'any'],
  ])('combines several conditions with enableBehavior %s as %s', (enableBehavior, combinator) => {
    const imported = importedItem(
      {
        linkId: 'a',
        type: 'string',
        enableBehavior,
        enableWhen: [
          { question: 'gate', operator: '=', answerBoolean: true },
          { question: 'n', operator: '>', answerInteger: 3 },
        ],
      },
      [gate, { linkId: 'n', type: 'integer' }],
    );
    expect(imported.notAllowedWhen).toEqual({
      not: { [combinator]: [gateTrue, { linkId: 'n', operator: '>', answer: num(3) }] },
    });
  });

  it('rejects an unknown enableBehavior', () => {
    expect(
      problemsOf(
        questionnaire([
          gate,
          { linkId: 'a', type: 'string', enableBehavior: 'some', enableWhen: whenGate() },
        ]),
      ),
    ).toEqual([expect.objectContaining({ code: 'invalid_condition', linkId: 'a' })]);
  });

  it.each([
    ['exists', { answerBoolean: false }, { linkId: 'src', operator: 'exists', exists: false }, 'string'],
    ['=', { answerString: 'x' }, { linkId: 'src', operator: '=', answer: str('x') }, 'string'],
    ['!=', { answerDecimal: 1.5 }, { linkId: 'src', operator: '!=', answer: num(1.5) }, 'decimal'],
    ['>', { answerInteger: 4 }, { linkId: 'src', operator: '>', answer: num(4) }, 'integer'],
    ['<', { answerDate: '2020-05-01' }, { linkId: 'src', operator: '<', answer: date('2020-05-01') }, 'date'],
    [
      '>=',
      { answerQuantity: { value: 89, unit: '%' } },
      { linkId: 'src', operator: '>=', answer: num(89) },
      'quantity',
    ],
    [
      '<=',
      { answerDateTime: '2020-05-01T10:00:00Z' },
      { linkId: 'src', operator: '<=', answer: date('2020-05-01') },
      'dateTime',
    ],
    [
      '=',
      { answerCoding: { system: 's', version: '1', code: 'c' } },
      { linkId: 'src', operator: '=', answer: code('c', 's') },
      'choice',
    ],
    ['=', { answerTime: '10:30:00' }, { linkId: 'src', operator: '=', answer: str('10:30:00') }, 'time'],
  ])('maps operator %s with %j', (operator, answer, expected, sourceType) => {
    const imported = importedItem(
      { linkId: 'a', type: 'string', enableWhen: [{ question: 'src', operator, ...answer }] },
      [{ linkId: 'src', type: sourceType }],
    );
    expect(imported.notAllowedWhen).toEqual({ not: expected });
  });

  it('compares a choice item with a primitive by option code', () => {
    const source = {
      linkId: 'src',
      type: 'integer',
      answerOption: [{ valueInteger: 12 }, { valueInteger: 34 }],
    };
    const imported = importedItem(
      { linkId: 'a', type: 'string', enableWhen: [{ question: 'src', operator: '=', answerInteger: 34 }] },
      [source],
    );
    expect(imported.notAllowedWhen).toEqual({ not: { linkId: 'src', operator: '=', answer: code('34') } });
  });

  it('compares an open-choice item with free text as a string, with an option as a coding', () => {
    const source = { linkId: 'src', type: 'open-choice', answerOption: [{ valueCoding: { code: 'known' } }] };
    const when = (answerString: string) =>
      importedItem(
        { linkId: 'a', type: 'string', enableWhen: [{ question: 'src', operator: '=', answerString }] },
        [source],
      ).notAllowedWhen;
    expect(when('known')).toEqual({ not: { linkId: 'src', operator: '=', answer: code('known') } });
    expect(when('other')).toEqual({ not: { linkId: 'src', operator: '=', answer: str('other') } });
  });

  it.each([
    ['an unknown operator', { question: 'gate', operator: '~', answerBoolean: true }],
    ['no answer', { question: 'gate', operator: '=' }],
    ['two answers', { question: 'gate', operator: '=', answerBoolean: true, answerString: 'x' }],
    ['a value of the wrong type', { question: 'gate', operator: '=', answerDecimal: 1 }],
    ['exists without a boolean', { question: 'gate', operator: 'exists', answerString: 'x' }],
  ])('rejects an enableWhen with %s', (_label, enableWhen) => {
    expect(
      problemsOf(questionnaire([gate, { linkId: 'a', type: 'string', enableWhen: [enableWhen] }])),
    ).toEqual([expect.objectContaining({ code: 'invalid_condition', linkId: 'a' })]);
  });

  it('rejects an enableWhen reading a group or display item', () => {
    expect(
      problemsOf(
        questionnaire([
          { linkId: 'g', type: 'group', item: [{ linkId: 'x', type: 'string' }] },
          {
            linkId: 'a',
            type: 'string',
            enableWhen: [{ question: 'g', operator: 'exists', answerBoolean: true }],
          },
          { linkId: 'b', type: 'string', enableWhen: [{ question: 'g', operator: '=', answerString: 'x' }] },
        ]),
      ).map((problem) => [problem.code, problem.linkId]),
    ).toEqual([
      ['invalid_condition', 'a'],
      ['invalid_condition', 'b'],
    ]);
  });

  it('rejects unknown linkIds and cycles through validateTemplate', () => {
    expect(
      problemsOf(
        questionnaire([
          { linkId: 'a', type: 'string', enableWhen: [{ question: 'zz', operator: '=', answerString: 'x' }] },
        ]),
      ),
    ).toEqual([expect.objectContaining({ code: 'unknown_link_id', linkId: 'a', reference: 'zz' })]);
    expect(
      problemsOf(
        questionnaire([
          {
            linkId: 'a',
            type: 'string',
            enableWhen: [{ question: 'b', operator: 'exists', answerBoolean: true }],
          },
          {
            linkId: 'b',
            type: 'string',
            enableWhen: [{ question: 'a', operator: 'exists', answerBoolean: true }],
          },
        ]),
      ),
    ).toEqual([expect.objectContaining({ code: 'condition_cycle', cycle: ['a', 'b', 'a'] })]);
  });

  it('conjoins ancestors\u2019 enableWhen into descendants (a disabled item disables its descendants)', () => {
    const imported = importFhirQuestionnaire(
      questionnaire([
        gate,
        {
          linkId: 'outer',
          type: 'group',
          item: [
            {
              linkId: 'inner',
              type: 'group',
              enableWhen: whenGate(),
              item: [
                {
                  linkId: 'parent',
                  type: 'integer',
                  required: true,
                  item: [
                    {
                      linkId: 'child',
                      type: 'string',
                      required: true,
                      enableWhen: [{ question: 'parent', operator: '>', answerInteger: 1 }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ]),
    );
    const byId = new Map(allItems(imported).map((entry) => [entry.linkId, entry]));
    const parentEnabled = { linkId: 'parent', operator: '>', answer: num(1) };
    expect(byId.get('parent')).toMatchObject({
      required: false,
      requiredWhen: gateTrue,
      notAllowedWhen: { not: gateTrue },
    });
    expect(byId.get('child')).toMatchObject({
      required: false,
      requiredWhen: { all: [gateTrue, parentEnabled] },
      notAllowedWhen: { not: { all: [gateTrue, parentEnabled] } },
    });

    const questions = (answers: Parameters<typeof response>[0]) =>
      evaluateRequirements(imported, [], response(answers), []).questions.map((question) => question.linkId);
    expect(questions({})).toEqual([]);
    expect(questions({ gate: [bool(true)] })).toEqual(['parent']);
    expect(questions({ gate: [bool(true)], parent: [num(2)] })).toEqual(['child']);
    expect(questions({ gate: [bool(false)], parent: [num(2)] })).toEqual([]);
  });

  it('keeps required: true for a required item without enableWhen anywhere above it', () => {
    expect(importedItem({ linkId: 'a', type: 'string', required: true })).toMatchObject({ required: true });
  });
});

describe('importFhirQuestionnaire: real-form fixes (decision 0018)', () => {
  const warningsOf = (items: FhirItem[], extra: Record<string, unknown> = {}): FhirImportWarning[] =>
    importFhirQuestionnaireWithWarnings(questionnaire(items, extra)).warnings;
  const evaluateForm = (form: QuestionnaireTemplate, answers: Record<string, Answer[]>) =>
    evaluateRequirements(form, [], response(answers), []);
  const issueCodes = (form: QuestionnaireTemplate, answers: Record<string, Answer[]>) =>
    evaluateForm(form, answers).issues.map((issue) => `${issue.field}:${issue.code}`);

  it('takes an answerOption coding with a display but no code, the display being the code', () => {
    const imported = importedItem({
      linkId: 'why',
      type: 'choice',
      answerOption: [
        { valueCoding: { display: 'Initial order' } },
        { valueCoding: { system: 'http://x', code: 'R', display: 'Replacement' } },
      ],
    });
    expect(imported.options).toEqual([
      { code: 'Initial order', display: 'Initial order' },
      { code: 'R', display: 'Replacement' },
    ]);
    const form = importFhirQuestionnaire(
      questionnaire([
        {
          linkId: 'why',
          type: 'choice',
          answerOption: [{ valueCoding: { display: 'Initial order' } }],
        },
        {
          linkId: 'more',
          type: 'string',
          required: true,
          enableWhen: [{ question: 'why', operator: '=', answerCoding: { display: 'Initial order' } }],
        },
      ]),
    );
    expect(evaluateForm(form, { why: [code('Initial order')] }).questions.map((q) => q.linkId)).toEqual([
      'more',
    ]);
  });

  it('still rejects an answerOption coding with neither code nor display', () => {
    expect(
      problemsOf(questionnaire([{ linkId: 'a', type: 'choice', answerOption: [{ valueCoding: {} }] }])),
    ).toEqual([expect.objectContaining({ code: 'invalid_option', linkId: 'a', path: '"a"' })]);
  });

  it('enforces a required group: at least one answer inside it, only while it is enabled', () => {
    const form = importFhirQuestionnaire(
      questionnaire([
        { linkId: 'gate', type: 'boolean' },
        {
          linkId: 'g',
          type: 'group',
          text: 'Diagnoses',
          required: true,
          enableWhen: [{ question: 'gate', operator: '=', answerBoolean: true }],
          item: [
            { linkId: 'g.1', type: 'string' },
            { linkId: 'g.2', type: 'group', item: [{ linkId: 'g.2.1', type: 'string' }] },
          ],
        },
      ]),
    );
    const asked = (answers: Record<string, Answer[]>) =>
      evaluateForm(form, answers).questions.map((question) => question.linkId);
    expect(asked({})).toEqual([]);
    expect(asked({ gate: [bool(true)] })).toEqual(['g']);
    expect(asked({ gate: [bool(true)], 'g.2.1': [str('x')] })).toEqual([]);
  });

  it('ties the answers of a repeating group to their instance; answerRepeats takes several answers', () => {
    const items = [
      {
        linkId: 'meds',
        type: 'group',
        repeats: true,
        item: [
          { linkId: 'meds.name', type: 'string', required: true },
          { linkId: 'meds.dose', type: 'decimal' },
        ],
      },
      {
        linkId: 'codes',
        type: 'string',
        extension: [
          { url: 'http://hl7.org/fhir/StructureDefinition/questionnaire-answerRepeats', valueBoolean: true },
        ],
      },
    ];
    const { template: form, warnings } = importFhirQuestionnaireWithWarnings(questionnaire(items));
    const evaluate = (entries: QuestionnaireResponse['item']) =>
      evaluateRequirements(form, [], { item: entries }, []);
    const two = evaluate([
      { linkId: 'meds.name', instance: 0, answer: [str('a')] },
      { linkId: 'meds.dose', instance: 0, answer: [num(1)] },
      { linkId: 'meds.dose', instance: 1, answer: [num(2)] },
      { linkId: 'codes', answer: [str('x'), str('y')] },
    ]);
    expect(two.issues).toEqual([]);
    expect(two.questions).toEqual([expect.objectContaining({ linkId: 'meds.name', instance: 1 })]);
    expect(evaluate([{ linkId: 'meds.name', instance: 0, answer: [str('a'), str('b')] }]).issues).toEqual([
      expect.objectContaining({ code: 'too_many_answers', field: 'meds.name', instance: 0 }),
    ]);
    expect(form.groupRules).toEqual([
      { linkId: 'meds', text: 'meds', linkIds: ['meds.name', 'meds.dose'], repeats: true },
    ]);
    expect(allItems(form).find((item) => item.linkId === 'meds.name')?.repeats).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('flattens a repeating group inside a repeating group into the outer instance, with a warning', () => {
    const { template: form, warnings } = importFhirQuestionnaireWithWarnings(
      questionnaire([
        {
          linkId: 'visits',
          type: 'group',
          repeats: true,
          item: [
            { linkId: 'visits.date', type: 'date' },
            {
              linkId: 'visits.notes',
              type: 'group',
              repeats: true,
              item: [{ linkId: 'visits.notes.text', type: 'string' }],
            },
          ],
        },
      ]),
    );
    expect(form.groupRules).toEqual([
      {
        linkId: 'visits',
        text: 'visits',
        linkIds: ['visits.date', 'visits.notes.text'],
        repeats: true,
      },
    ]);
    expect(allItems(form).find((item) => item.linkId === 'visits.notes.text')?.repeats).toBe(true);
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'repeating_group_flattened', paths: ['"visits" > "visits.notes"'] }),
    ]);
  });

  it('keeps integer, quantity, time and dateTime as value types: 2.5 is refused, refined answers accepted', () => {
    const form = importFhirQuestionnaire(
      questionnaire([
        { linkId: 'n', type: 'integer' },
        {
          linkId: 'flow',
          type: 'quantity',
          extension: [
            {
              url: 'http://hl7.org/fhir/StructureDefinition/questionnaire-unitOption',
              valueCoding: { system: 'http://unitsofmeasure.org', code: 'L/min', display: 'L/min' },
            },
          ],
        },
        { linkId: 't', type: 'time' },
        { linkId: 'dt', type: 'dateTime' },
      ]),
    );
    const byLinkId = new Map(allItems(form).map((entry) => [entry.linkId, entry]));
    expect(byLinkId.get('n')?.valueType).toBe('integer');
    expect(byLinkId.get('flow')).toMatchObject({ valueType: 'quantity', units: [{ code: 'L/min' }] });
    expect(issueCodes(form, { n: [num(2.5)] })).toEqual(['n:answer_type_mismatch']);
    expect(
      issueCodes(form, {
        n: [{ valueInteger: 2 }],
        flow: [{ valueQuantity: { value: 2.5, unit: 'L/min' } }],
        t: [{ valueTime: '10:30' }],
        dt: [{ valueDateTime: '2024-01-02T10:30:00Z' }],
      }),
    ).toEqual([]);
    expect(issueCodes(form, { flow: [{ valueQuantity: { value: 2.5, unit: 'mg' } }] })).toEqual([
      'flow:unit_not_allowed',
    ]);
  });

  it('keeps the minLength extension', () => {
    const form = importFhirQuestionnaire(
      questionnaire([
        {
          linkId: 's',
          type: 'string',
          extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/minLength', valueInteger: 3 }],
        },
      ]),
    );
    expect(issueCodes(form, { s: [str('ab')] })).toEqual(['s:min_length_not_met']);
  });

  it('drops initialExpression and other expressions with a warning, and names ignored extensions', () => {
    const warnings = warningsOf(
      [
        {
          linkId: 'a',
          type: 'string',
          extension: [
            {
              url: 'http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-initialExpression',
              valueExpression: { language: 'text/cql', expression: 'X' },
            },
            { url: 'http://example.org/odd', valueString: 'x' },
          ],
        },
        { linkId: 'b', type: 'string', enableWhenExpression: 'true' },
      ],
      { extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/cqf-library', valueCanonical: 'L' }] },
    );
    expect(warnings.map((warning) => [warning.code, warning.paths])).toEqual([
      ['expression_dropped', []],
      ['expression_dropped', ['"a"']],
      ['extension_ignored', ['"a"']],
      ['expression_dropped', ['"b"']],
    ]);
  });

  it('skips a (hidden) reference item with a warning instead of rejecting the form', () => {
    const { template: form, warnings } = importFhirQuestionnaireWithWarnings(
      questionnaire([
        {
          linkId: 'g',
          type: 'group',
          item: [
            {
              linkId: 'ref',
              type: 'reference',
              extension: [
                { url: 'http://hl7.org/fhir/StructureDefinition/questionnaire-hidden', valueBoolean: true },
              ],
            },
            { linkId: 'q', type: 'string' },
          ],
        },
      ]),
    );
    expect(allItems(form).map((entry) => entry.linkId)).toEqual(['q']);
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'reference_item_skipped', paths: ['"g" > "ref"'] }),
    ]);
  });

  it('warns about sub-questionnaire placeholders and required display items instead of dropping them silently', () => {
    const warnings = warningsOf([
      {
        linkId: 'sub',
        type: 'display',
        extension: [
          {
            url: 'http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-subQuestionnaire',
            valueCanonical: 'Questionnaire/other',
          },
        ],
      },
      { linkId: 'note', type: 'display', required: true },
      { linkId: 'q', type: 'string' },
    ]);
    expect(warnings.map((warning) => [warning.code, warning.paths])).toEqual([
      ['sub_questionnaire_dropped', ['"sub"']],
      ['display_item_required', ['"note"']],
    ]);
  });

  it('keeps display items as text at their place among the questions, with their enableWhen', () => {
    const form = importFhirQuestionnaire(
      questionnaire([
        { linkId: 'intro', type: 'display', text: 'Read this first' },
        {
          linkId: 'g',
          type: 'group',
          text: 'G',
          item: [
            { linkId: 'q1', type: 'boolean' },
            {
              linkId: 'hint',
              type: 'display',
              text: 'Attach the report',
              enableWhen: [{ question: 'q1', operator: '=', answerBoolean: true }],
            },
            { linkId: 'q2', type: 'string' },
          ],
        },
        { linkId: 'outro', type: 'display', text: 'Thank you' },
      ]),
    );
    const group = form.groups.find((entry) => entry.id === 'g');
    expect(group?.displays).toEqual([
      { linkId: 'intro', text: 'Read this first', position: 0 },
      {
        linkId: 'hint',
        text: 'Attach the report',
        position: 1,
        hiddenWhen: { not: { linkId: 'q1', operator: '=', answer: { valueBoolean: true } } },
      },
      { linkId: 'outro', text: 'Thank you', position: 2 },
    ]);
    expect(presentQuestionnaire(form, { item: [] }).find((entry) => entry.id === 'g')?.displays).toEqual(
      group?.displays,
    );
  });

  it.each([
    ['a position beyond the items', { linkId: 'd', text: 'x', position: 2 }, 'position must be'],
    ['a linkId of a question', { linkId: 'q', text: 'x', position: 0 }, 'used more than once'],
    [
      'a condition on an unknown item',
      {
        linkId: 'd',
        text: 'x',
        position: 0,
        hiddenWhen: { linkId: 'nope', operator: 'exists', exists: true },
      },
      'unknown linkId',
    ],
  ])('refuses a display with %s', (_label, display, message) => {
    const form = {
      id: 't',
      version: '1',
      title: 'T',
      groups: [{ id: 'g', title: 'G', items: [item('q', 'string')], displays: [display] }],
    } as unknown as QuestionnaireTemplate;
    expect(() => validateTemplate(form)).toThrow(message);
  });

  it('refuses an enableWhen reading a skipped reference item, naming it', () => {
    const problems = problemsOf(
      questionnaire([
        { linkId: 'ref', type: 'reference' },
        {
          linkId: 'q',
          type: 'string',
          enableWhen: [{ question: 'ref', operator: 'exists', answerBoolean: true }],
        },
      ]),
    );
    expect(problems).toEqual([
      expect.objectContaining({ code: 'invalid_condition', linkId: 'q', reference: 'ref', path: '"q"' }),
    ]);
    expect(problems[0]?.message).toContain('skipped reference item');
  });

  it('refuses an empty form', () => {
    expect(problemsOf(questionnaire([]))).toEqual([
      expect.objectContaining({
        code: 'invalid_questionnaire',
        message: 'the form has no question to answer',
      }),
    ]);
    expect(problemsOf(questionnaire([{ linkId: 'd', type: 'display' }]))[0]?.code).toBe(
      'invalid_questionnaire',
    );
  });

  it('defaults a missing enableBehavior with several enableWhen to any, with a warning', () => {
    const items = [
      { linkId: 'a', type: 'boolean' },
      { linkId: 'b', type: 'boolean' },
      {
        linkId: 'c',
        type: 'string',
        enableWhen: [
          { question: 'a', operator: '=', answerBoolean: true },
          { question: 'b', operator: '=', answerBoolean: true },
        ],
      },
    ];
    const { template: form, warnings } = importFhirQuestionnaireWithWarnings(questionnaire(items));
    expect(allItems(form)[2]?.notAllowedWhen).toEqual({ not: { any: expect.any(Array) } });
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'enable_behavior_defaulted', paths: ['"c"'] }),
    ]);
    expect(
      warningsOf(items.map((entry, index) => (index === 2 ? { ...entry, enableBehavior: 'any' } : entry))),
    ).toEqual([]);
  });

  it.each([
    ['R5', { item: [{ linkId: 'a', type: 'coding' }] }, /FHIR R5.*"a"/],
    ['R5', { copyrightLabel: 'x', item: [{ linkId: 'a', type: 'string' }] }, /FHIR R5/],
    ['STU3', { item: [{ linkId: 'a', type: 'choice', option: [{ valueString: 'x' }] }] }, /FHIR STU3/],
    ['STU3', { item: [{ linkId: 'a', type: 'string', initialString: 'x' }] }, /FHIR STU3/],
  ])('rejects a %s Questionnaire with a clear message', (_release, extra, message) => {
    const problems = problemsOf({ resourceType: 'Questionnaire', ...extra });
    expect(problems).toEqual([expect.objectContaining({ code: 'unsupported_fhir_version' })]);
    expect(problems[0]?.message).toMatch(message);
  });

  it('gives problems the linkId path, also for problems found by validation', () => {
    const problems = problemsOf(
      questionnaire([
        {
          linkId: 'g',
          type: 'group',
          item: [
            {
              linkId: 'q',
              type: 'string',
              enableWhen: [{ question: 'nope', operator: 'exists', answerBoolean: true }],
            },
          ],
        },
      ]),
    );
    expect(problems).toEqual([
      expect.objectContaining({ code: 'unknown_link_id', linkId: 'q', path: '"g" > "q"' }),
    ]);
  });
});
