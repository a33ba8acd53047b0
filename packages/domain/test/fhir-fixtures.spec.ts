/*
 * Real FHIR R4 Questionnaires (HL7 Da Vinci CDS-Library and LHNCBC lforms test data, see the fixtures
 * README for attribution) imported and evaluated end to end. Skipped when the shared fixtures folder is not
 * checked out next to the repository.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { DomainError } from '../src/shared/domain-error';
import {
  applyDefaults,
  evaluateRequirements,
  importFhirQuestionnaire,
  importFhirQuestionnaireWithWarnings,
  presentQuestionnaire,
  type Answer,
  type QuestionnaireTemplate,
  type RequirementSet,
} from '../src/requirements';
import { bool, code, date, num, response, str } from '../src/requirements/testing/template-builder';

const FIXTURES = path.resolve(__dirname, '../../../../shared/fixtures/fhir-questionnaires');
const describeWithFixtures = fs.existsSync(FIXTURES) ? describe : describe.skip;

const HOME_OXYGEN = 'cds-library-Questionnaire-R4-HomeOxygenTherapy.json';
const GLUCOSE_MONITOR = 'cds-library-Questionnaire-R4-HomeBloodGlucoseMonitorOrder.json';
const LOWER_LIMB = 'cds-library-Questionnaire-R4-LowerLimbProsthesis.json';
const LFORMS_ENABLE_WHEN = 'lforms-enableWhen-test.R4.json';
const LFORMS_LOOP = 'lforms-q-enableWhen-with-reference-loop.json';
const LFORMS_MISSING = 'lforms-questionnaire-enableWhen-missing-linkId.json';

const read = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));

type Answers = Record<string, Answer[]>;

const evaluate = (form: QuestionnaireTemplate, answers: Answers): RequirementSet =>
  evaluateRequirements(form, [], response(answers), []);
const questions = (form: QuestionnaireTemplate, answers: Answers): string[] =>
  evaluate(form, answers).questions.map((question) => question.linkId);
const issues = (form: QuestionnaireTemplate, answers: Answers): string[] =>
  evaluate(form, answers).issues.map((issue) => `${issue.field}:${issue.code}`);
/** Of the items probed (each given an answer), those that are allowed: no answer_not_allowed for them. */
function allowedOf(form: QuestionnaireTemplate, answers: Answers, probes: Record<string, Answer>): string[] {
  const probed: Answers = { ...answers };
  for (const [linkId, answer] of Object.entries(probes)) probed[linkId] = [answer];
  const refused = new Set(
    evaluate(form, probed)
      .issues.filter((issue) => issue.code === 'answer_not_allowed')
      .map((issue) => issue.field),
  );
  return Object.keys(probes).filter((linkId) => !refused.has(linkId));
}
const linkIds = (form: QuestionnaireTemplate): string[] =>
  form.groups.flatMap((group) => group.items.map((item) => item.linkId));

describeWithFixtures('real FHIR R4 questionnaires', () => {
  describe.each([HOME_OXYGEN, GLUCOSE_MONITOR, LOWER_LIMB, LFORMS_ENABLE_WHEN])('%s', (file) => {
    it('imports into a plain-JSON template that evaluates and presents', () => {
      const form = importFhirQuestionnaire(read(file));
      expect(JSON.parse(JSON.stringify(form))).toEqual(form);
      expect(() => evaluate(form, {})).not.toThrow();
      expect(
        presentQuestionnaire(form, { item: [] }).flatMap((group) => group.items.map((item) => item.linkId)),
      ).toEqual(linkIds(form));
    });

    it('never throws on arbitrary answers to its linkIds', () => {
      const form = importFhirQuestionnaire(read(file));
      const answerArb = fc.oneof(
        fc.integer({ min: -5, max: 200 }).map(num),
        fc.boolean().map(bool),
        fc.constantFrom('test', 'tes', '2020-05-01', 'Insulin Treated', 'B').map(str),
        fc.constantFrom('2020-05-01', '2022-13-01').map(date),
        fc.constantFrom('B', 'Insulin Treated', 'Replacement', '34').map((value) => code(value)),
      );
      fc.assert(
        fc.property(
          fc.dictionary(fc.constantFrom(...linkIds(form)), fc.array(answerArb, { maxLength: 2 })),
          (answers) => {
            const result = evaluate(form, answers);
            for (const question of result.questions) expect(answers[question.linkId] ?? []).toEqual([]);
          },
        ),
        { numRuns: 100 },
      );
    });
  });

  it.each([
    [HOME_OXYGEN, ['expression_dropped', 'sub_questionnaire_dropped']],
    [GLUCOSE_MONITOR, ['expression_dropped', 'sub_questionnaire_dropped', 'extension_ignored']],
    [LOWER_LIMB, ['expression_dropped', 'display_item_required']],
    [LFORMS_ENABLE_WHEN, ['expression_dropped']],
  ])('%s imports, reporting every approximation as a warning', (file, codes) => {
    const { warnings } = importFhirQuestionnaireWithWarnings(read(file));
    expect([...new Set(warnings.map((warning) => warning.code))].sort()).toEqual([...codes].sort());
  });

  it("keeps the glucose monitor order's required group 5 as a group rule", () => {
    const form = importFhirQuestionnaire(read(GLUCOSE_MONITOR));
    expect(form.groupRules).toEqual([expect.objectContaining({ linkId: '5', required: true })]);
  });

  describe('the broken forms are rejected at load', () => {
    const rejection = (file: string): DomainError => {
      try {
        importFhirQuestionnaire(read(file));
      } catch (error) {
        if (error instanceof DomainError) return error;
        throw error;
      }
      throw new Error(`${file} was imported`);
    };

    it('rejects the enableWhen reference loop, naming the cycle', () => {
      const error = rejection(LFORMS_LOOP);
      expect(error.code).toBe('template_invalid');
      expect(error.message).toMatch(/cycle/);
      const [problem] = error.details['problems'] as Array<{ code: string; cycle: string[] }>;
      expect(problem?.code).toBe('condition_cycle');
      expect(problem?.cycle).toContain('item3');
      expect(problem?.cycle.some((linkId) => linkId === 'item1' || linkId === 'item2')).toBe(true);
    });

    it('rejects the enableWhen on a missing linkId, naming it', () => {
      const error = rejection(LFORMS_MISSING);
      expect(error.code).toBe('template_invalid');
      expect(error.message).toContain('"q11"');
      expect(error.details).toMatchObject({
        linkId: 'q3',
        problems: [{ code: 'unknown_link_id', linkId: 'q3', reference: 'q11' }],
      });
    });
  });

  describe('HomeOxygenTherapy', () => {
    const form = () => importFhirQuestionnaire(read(HOME_OXYGEN));

    it('keeps the 17 required items (required, or required while enabled)', () => {
      const required = form()
        .groups.flatMap((group) => group.items)
        .filter((item) => item.required || item.requiredWhen !== undefined);
      expect(required.map((item) => item.linkId)).toEqual([
        '3.1.1',
        '3.1.2',
        '4.1',
        '4.2',
        '4.4.1',
        '4.4.2',
        '4.4.3',
        '4.5.1',
        '4.5.2',
        '4.6',
        '5.2',
        '5.3',
        '5.4',
        '5.5',
        '5.5.1',
        '5.5.2',
        '5.5.3',
      ]);
    });

    it('asks only the unconditionally required questions of an empty answer set', () => {
      expect(questions(form(), {})).toEqual([
        '3.1.1',
        '3.1.2',
        '4.1',
        '4.2',
        '4.4.1',
        '4.4.2',
        '4.5.1',
        '4.5.2',
        '4.6',
        '5.2',
        '5.3',
        '5.4',
        '5.5',
      ]);
    });

    it.each([
      [5, ['4.4.3']],
      [4, []],
    ])('requires the oxygen flow rate (4.4.3) when 4.4.1 is %s (enableWhen > 4)', (value, expected) => {
      const result = questions(form(), { '4.4.1': [num(value)] });
      expect(result.filter((linkId) => linkId.startsWith('4.4'))).toEqual(['4.4.2', ...expected]);
    });

    it('refuses an answer to 4.4.3 while 4.4.1 is not above 4', () => {
      expect(issues(form(), { '4.4.1': [num(4)], '4.4.3': [num(2)] })).toEqual(['4.4.3:answer_not_allowed']);
      expect(issues(form(), { '4.4.1': [num(5)], '4.4.3': [num(2)] })).toEqual([]);
    });

    it.each([
      ['Change in status', ['5.5.1']],
      ['Revision or change in equipment', ['5.5.2']],
      ['Replacement', ['5.5.3']],
      ['Initial or original order for certification', []],
    ])('requires the matching follow-up when 5.5 is "%s"', (reason, expected) => {
      const result = questions(form(), { '5.5': [code(reason)] });
      expect(result.filter((linkId) => linkId.startsWith('5.5'))).toEqual(expected);
    });

    it('refuses follow-ups of another 5.5 reason and validates options', () => {
      expect(
        issues(form(), {
          '5.5': [code('Change in status')],
          '5.5.1': [code('Patient relocated')],
          '5.5.3': [code('Lost or stolen')],
        }),
      ).toEqual(['5.5.3:answer_not_allowed']);
      expect(issues(form(), { '5.5': [code('Broken')] })).toEqual(['5.5:option_not_allowed']);
    });

    it.each([
      [89, ['3.8', '3.9', '3.10', '3.11']],
      [95.5, ['3.8', '3.9', '3.10', '3.11']],
      [88, []],
      [undefined, []],
    ])(
      'enables the 3.8–3.10 follow-ups when oxygen saturation (3.2) is %s ≥ 89, and 3.11 through 3.10',
      (saturation, expected) => {
        const answers: Answers = saturation === undefined ? {} : { '3.2': [num(saturation)] };
        // 3.11 depends on 3.10 = true; when 3.10 itself is disabled it reads as unanswered, so 3.11 is too.
        expect(
          allowedOf(form(), answers, {
            '3.8': bool(true),
            '3.9': bool(true),
            '3.10': bool(true),
            '3.11': num(50),
          }),
        ).toEqual(expected);
      },
    );

    it('applies the minValue / maxValue of 3.3', () => {
      expect(issues(form(), { '3.3': [num(101)] })).toEqual(['3.3:above_max']);
      expect(issues(form(), { '3.3': [num(-1)] })).toEqual(['3.3:below_min']);
      expect(issues(form(), { '3.3': [num(55)] })).toEqual([]);
    });

    it('puts the loose top-level date (7) into a default group', () => {
      expect(form().groups.map((group) => group.id)).toEqual(['3', '4', '5', 'default']);
      expect(form().groups[3]?.items.map((item) => item.linkId)).toEqual(['7']);
    });

    it('accepts free text and codes on open-choice items without options', () => {
      expect(
        issues(form(), { '3.1.1': [code('J44.9', 'http://hl7.org/fhir/sid/icd-10-cm'), str('COPD')] }),
      ).toEqual([]);
    });
  });

  describe('HomeBloodGlucoseMonitorOrder', () => {
    const form = () => importFhirQuestionnaire(read(GLUCOSE_MONITOR));
    const insulin = code('Insulin Treated');
    const nonInsulin = code('Non-insulin Treated');

    it('asks the unconditionally required questions of an empty answer set', () => {
      expect(questions(form(), {})).toEqual(['3.1', '3.2', '5.1', '5.2', '5.3', '5.4', '6.3']);
    });

    it('tolerates answerBoolean "true": 4.3.2 is enabled by 4.3.1 = true', () => {
      expect(allowedOf(form(), {}, { '4.3.2': nonInsulin })).toEqual([]);
      expect(allowedOf(form(), { '4.3.1': [bool(true)] }, { '4.3.2': nonInsulin })).toEqual(['4.3.2']);
      expect(allowedOf(form(), { '4.3.1': [bool(false)] }, { '4.3.2': nonInsulin })).toEqual([]);
    });

    it('fills the 4.3.2 default only while 4.3.1 enables it', () => {
      expect(applyDefaults(form(), { item: [] })).toEqual({ item: [] });
      expect(applyDefaults(form(), response({ '4.3.1': [bool(true)] })).item).toEqual([
        { linkId: '4.3.1', answer: [bool(true)] },
        {
          linkId: '4.3.2',
          answer: [{ valueCoding: { code: 'Non-insulin Treated', display: 'Non-insulin Treated' } }],
        },
      ]);
    });

    const probes = {
      '6.1.1': num(2),
      '6.1.2': str('x'),
      '6.2.1': num(4),
      '6.2.2': str('x'),
      '7.1.1': code('30-day Supply (30)'),
      '7.2.1': code('30-day Supply (100)'),
    };

    it.each([
      ['insulin treated', { '4.3.1': [bool(true)], '4.3.2': [insulin] }, ['6.2.1', '6.2.2', '7.2.1']],
      ['non-insulin treated', { '4.3.1': [bool(true)], '4.3.2': [nonInsulin] }, ['6.1.1', '6.1.2', '7.1.1']],
      // "!=" holds for an unanswered 4.3.2, so the non-insulin groups are enabled.
      ['unanswered', {}, ['6.1.1', '6.1.2', '7.1.1']],
      // 4.3.2 is disabled (4.3.1 not answered), so its "Insulin Treated" reads as unanswered.
      ['answered while disabled', { '4.3.2': [insulin] }, ['6.1.1', '6.1.2', '7.1.1']],
    ])('enables the groups for %s (=, != and nested enableWhen)', (_label, answers: Answers, expected) => {
      expect(allowedOf(form(), answers, probes)).toEqual(expected);
    });

    it('disables 6.1.2 unless 6.1.1 > 1', () => {
      expect(allowedOf(form(), { '6.1.1': [num(1)] }, { '6.1.2': str('x') })).toEqual([]);
      expect(allowedOf(form(), { '6.1.1': [num(2)] }, { '6.1.2': str('x') })).toEqual(['6.1.2']);
    });

    it.each([
      [code('K0554', 'https://bluebutton.cms.gov/resources/codesystem/hcpcs'), true],
      [code('S1031'), true],
      [code('K0554', 'http://other.example/system'), false],
      [code('E0607'), false],
    ])('enables 7.4 (enableBehavior any) for 5.1 = %j: %s', (device, enabled) => {
      expect(allowedOf(form(), { '5.1': [device] }, { '7.4.1': num(1), '7.4.2': num(1) })).toEqual(
        enabled ? ['7.4.1', '7.4.2'] : [],
      );
    });

    it('accepts free text on the open-choice 6.3, but not an unknown coding', () => {
      expect(issues(form(), { '6.3': [code('Fasting'), str('After exercise')] })).toEqual([]);
      expect(issues(form(), { '6.3': [code('Midnight')] })).toEqual(['6.3:option_not_allowed']);
    });
  });

  describe('LowerLimbProsthesis', () => {
    const form = () => importFhirQuestionnaire(read(LOWER_LIMB));

    it('keeps its 19 required questions (the 20th required item is a display item)', () => {
      const required = form()
        .groups.flatMap((group) => group.items)
        .filter((item) => item.required || item.requiredWhen !== undefined);
      expect(required).toHaveLength(19);
      expect(linkIds(form())).not.toContain('3.4');
    });

    it('asks the unconditional questions, then each estimation once its analysis is true', () => {
      expect(questions(form(), {})).toEqual([
        '1.1',
        '1.2',
        '2.1',
        '2.3',
        '3.1',
        '3.2',
        '3.3',
        '5.1',
        '5.3',
        '5.5',
        '5.7',
        '6.1',
        '6.2',
      ]);
      const answers: Answers = { '2.1': [bool(true)], '5.3': [bool(true)], '5.7': [bool(false)] };
      const asked = questions(form(), answers);
      expect(asked).toEqual(expect.arrayContaining(['2.2', '5.4']));
      expect(asked).not.toContain('5.8');
      expect(asked).not.toContain('2.4');
    });

    it('maps string options of choice items to codes, with the initial value as default', () => {
      const first = form().groups[0]?.items[0];
      expect(first).toMatchObject({
        linkId: '1.1',
        answerType: 'coding',
        defaultValue: { valueCoding: { code: 'Initial' } },
      });
      expect(issues(form(), { '6.1': [code('Both')] })).toEqual([]);
      expect(issues(form(), { '6.1': [code('Middle')] })).toEqual(['6.1:option_not_allowed']);
    });
  });

  describe('lforms enableWhen test: every operator on each type enables its target', () => {
    const form = () => importFhirQuestionnaire(read(LFORMS_ENABLE_WHEN));
    const probe = (...targets: string[]) => Object.fromEntries(targets.map((linkId) => [linkId, str('x')]));

    // [label, answers, expected enabled dependents, dependents probed]
    const cases: Array<[string, Answers, string[], string[]]> = [];
    const scenario = (source: string, suffixes: string[], rows: Array<[Answer[], string[]]>): void => {
      const dependents = suffixes.map((suffix) => `${source}-${suffix}`);
      for (const [answers, enabled] of rows) {
        const expected = new Set(enabled.map((suffix) => `${source}-${suffix}`));
        cases.push([
          `${source} = ${JSON.stringify(answers)}`,
          answers.length === 0 ? {} : { [source]: answers },
          dependents.filter((linkId) => expected.has(linkId)),
          dependents,
        ]);
      }
    };

    scenario(
      'Q1',
      ['exists', 'not-exists', 'true', 'false', 'not-true'],
      [
        [[], ['not-exists', 'not-true']],
        [[bool(true)], ['exists', 'true']],
        [[bool(false)], ['exists', 'false', 'not-true']],
      ],
    );
    scenario(
      'Q2',
      ['exists', 'not-exists', 'equal', 'ge'],
      [
        [[], ['not-exists']],
        [[num(5.6)], ['exists', 'equal', 'ge']],
        [[num(4.8)], ['exists', 'ge']],
        [[num(4.7)], ['exists']],
      ],
    );
    scenario(
      'Q3',
      ['exists', 'not-exists', 'equal', 'ge'],
      [
        [[], ['not-exists']],
        [[num(5)], ['exists', 'equal', 'ge']],
        [[num(4)], ['exists', 'ge']],
        [[num(3)], ['exists']],
      ],
    );
    scenario(
      'Q4',
      ['exists', 'not-exists', 'equal', 'ge'],
      [
        [[], ['not-exists']],
        [[date('2020-05-01')], ['exists', 'equal', 'ge']],
        [[date('2020-05-02')], ['exists', 'ge']],
        [[date('2020-04-30')], ['exists']],
      ],
    );
    scenario(
      'Q5',
      ['exists', 'not-exists'],
      [
        [[], ['not-exists']],
        [[date('2020-05-01')], ['exists']],
      ],
    );
    scenario(
      'Q6',
      ['exists', 'not-exists'],
      [
        [[], ['not-exists']],
        [[str('10:30:00')], ['exists']],
      ],
    );
    // Real linkIds; note the fixture's "Q7-lt" is "> testing" and "Q7-le" is "< test".
    scenario(
      'Q7',
      ['exists', 'not-exists', 'equals', 'notequals', 'gt', 'ge', 'ge2', 'lt', 'le', 'le2'],
      [
        [[], ['not-exists', 'notequals']],
        [[str('test')], ['exists', 'equals', 'gt', 'ge', 'ge2', 'le2']],
        [[str('tes')], ['exists', 'notequals', 'ge2', 'le', 'le2']],
        [[str('zzz')], ['exists', 'notequals', 'gt', 'ge', 'ge2', 'lt']],
      ],
    );
    scenario(
      'Q8',
      ['exists', 'not-exists', 'eq-B', 'eq-B-and-C'],
      [
        [[], ['not-exists']],
        [[code('B', 'test-coding')], ['exists', 'eq-B']],
        [
          [code('B'), code('C')],
          ['exists', 'eq-B', 'eq-B-and-C'],
        ],
        [[code('A', 'test-coding')], ['exists']],
      ],
    );
    // Choice items on coding, string, integer, date and time options; the conditions name option codes.
    const choices: Array<[string, Answer, Answer]> = [
      ['Q9', code('B', 'test-coding'), code('A', 'test-coding')],
      ['Q9a', code('B'), code('A')],
      ['Q9b', code('34'), code('12')],
      ['Q9c', code('2022-09'), code('2022')],
      ['Q9d', code('13:30:00'), code('10:30:00')],
    ];
    for (const [source, matching, other] of choices) {
      scenario(
        source,
        ['exists', 'not-exists', 'eq-B', 'noteq-B'],
        [
          [[], ['not-exists', 'noteq-B']],
          [[matching], ['exists', 'eq-B']],
          [[other], ['exists', 'noteq-B']],
        ],
      );
    }

    it.each(cases)('%s enables %j', (_label, answers, enabled, dependents) => {
      expect(allowedOf(form(), answers, probe(...dependents))).toEqual(enabled);
    });

    it('covers every item that has an enableWhen', () => {
      const covered = new Set(cases.flatMap(([, , , dependents]) => dependents));
      const conditional = form()
        .groups.flatMap((g) => g.items)
        .filter((item) => item.notAllowedWhen !== undefined)
        .map((item) => item.linkId);
      expect(conditional.filter((linkId) => !covered.has(linkId))).toEqual([]);
    });

    it('imports the enableWhenExpression item (FHIRPath) without a condition', () => {
      const item = form()
        .groups.flatMap((g) => g.items)
        .find((entry) => entry.linkId === 'Q10-ewe');
      expect(item?.notAllowedWhen).toBeUndefined();
    });
  });
});
