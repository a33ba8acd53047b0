/*
 * Property test: on the real FHIR R4 forms, the engine's outstanding questions for generated answer sets
 * equal those of a direct reading of FHIR R4 semantics over the Questionnaire JSON (enableWhen with its
 * operators, enableBehavior defaulting to any, disabled ancestors and disabled sources, required only while
 * enabled, required groups). Skipped when the shared fixtures folder is not checked out next to the repository.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { evaluateRequirements, importFhirQuestionnaire, type Answer } from '../src/requirements';

const FIXTURES = path.resolve(__dirname, '../../../../shared/fixtures/fhir-questionnaires');
const describeWithFixtures = fs.existsSync(FIXTURES) ? describe : describe.skip;

type Node = Record<string, unknown>;
type Value = boolean | number | string;

const children = (node: Node): Node[] => (Array.isArray(node['item']) ? (node['item'] as Node[]) : []);
const flag = (value: unknown): boolean => value === true || value === 'true';
const NUMERIC = new Set(['integer', 'decimal', 'quantity']);
const isQuestion = (node: Node): boolean =>
  node['type'] !== 'group' && node['type'] !== 'display' && node['type'] !== 'reference';

/** Every question item of the form, in document order. */
function questionsOf(node: Node, into: Node[] = []): Node[] {
  for (const child of children(node)) {
    if (isQuestion(child)) into.push(child);
    questionsOf(child, into);
  }
  return into;
}

/** The answer[x] or value[x] of an option or condition as a plain value of the item's kind. */
function plain(type: unknown, entry: Node, prefix: 'answer' | 'value'): Value | undefined {
  const key = Object.keys(entry).find((candidate) => candidate.startsWith(prefix));
  if (key === undefined) return undefined;
  const raw = entry[key];
  if (key.endsWith('Coding')) {
    const coding = raw as Node;
    return (coding['code'] as string | undefined) ?? (coding['display'] as string);
  }
  if (key.endsWith('Quantity')) return (raw as Node)['value'] as number;
  if (type === 'boolean') return flag(raw);
  if (NUMERIC.has(String(type))) return Number(raw);
  return String(raw);
}

function optionsOf(form: Node, node: Node): string[] {
  const options = Array.isArray(node['answerOption']) ? (node['answerOption'] as Node[]) : [];
  const values = options.map((option) => String(plain('choice', option, 'value')));
  const valueSet = node['answerValueSet'];
  if (typeof valueSet === 'string' && valueSet.startsWith('#')) {
    const contained = (form['contained'] as Node[] | undefined)?.find((r) => r['id'] === valueSet.slice(1));
    const compose = contained?.['compose'] as Node | undefined;
    for (const include of (compose?.['include'] as Node[] | undefined) ?? [])
      for (const concept of (include['concept'] as Node[] | undefined) ?? [])
        values.push(String(concept['code']));
  }
  return values;
}

/** FHIR R4: the outstanding questions (and required groups) of a form for the given answers. */
function fhirOutstanding(form: Node, answers: Map<string, Value[]>): string[] {
  const byLinkId = new Map<string, Node>();
  const parentOf = new Map<Node, Node | undefined>();
  const index = (node: Node, parent: Node | undefined): void => {
    for (const child of children(node)) {
      byLinkId.set(child['linkId'] as string, child);
      parentOf.set(child, parent);
      index(child, child);
    }
  };
  index(form, undefined);
  const enabledCache = new Map<Node, boolean>();
  const answersOf = (linkId: string): Value[] => {
    const node = byLinkId.get(linkId);
    return node && enabled(node) ? (answers.get(linkId) ?? []) : [];
  };
  function enabled(node: Node): boolean {
    const cached = enabledCache.get(node);
    if (cached !== undefined) return cached;
    const parent = parentOf.get(node);
    let result = parent === undefined || enabled(parent);
    const conditions = Array.isArray(node['enableWhen']) ? (node['enableWhen'] as Node[]) : [];
    if (result && conditions.length > 0) {
      const holds = conditions.map((condition) => {
        const source = byLinkId.get(condition['question'] as string);
        const given = answersOf(condition['question'] as string);
        const operator = condition['operator'];
        if (operator === 'exists') return given.length > 0 === flag(condition['answerBoolean']);
        const expected = plain(source?.['type'], condition, 'answer');
        if (operator === '=') return given.some((value) => value === expected);
        if (operator === '!=') return !given.some((value) => value === expected);
        return given.some((value) => {
          if (typeof value !== typeof expected || typeof value === 'boolean') return false;
          const [a, b] = [value as number | string, expected as number | string];
          return operator === '>' ? a > b : operator === '<' ? a < b : operator === '>=' ? a >= b : a <= b;
        });
      });
      result = node['enableBehavior'] === 'all' ? holds.every(Boolean) : holds.some(Boolean);
    }
    enabledCache.set(node, result);
    return result;
  }

  const outstanding: string[] = [];
  const groups: string[] = [];
  const walk = (node: Node): void => {
    for (const child of children(node)) {
      const linkId = child['linkId'] as string;
      if (isQuestion(child) && flag(child['required']) && enabled(child) && answersOf(linkId).length === 0)
        outstanding.push(linkId);
      walk(child);
    }
  };
  walk(form);
  const groupWalk = (node: Node): void => {
    for (const child of children(node)) {
      if (child['type'] === 'group' && flag(child['required']) && enabled(child)) {
        const inside = questionsOf(child).map((question) => question['linkId'] as string);
        const answered = inside.some((linkId) => answersOf(linkId).length > 0);
        if (inside.length > 0 && !answered && !inside.some((linkId) => outstanding.includes(linkId)))
          groups.push(child['linkId'] as string);
      }
      groupWalk(child);
    }
  };
  groupWalk(form);
  return [...outstanding, ...groups].sort();
}

/** The engine's answer for a plain value of a FHIR item. */
function engineAnswer(node: Node, value: Value, options: string[]): Answer {
  // The importer turns any item with answerOption into a coding item keyed by the option's value (0011).
  if (node['type'] !== 'open-choice' && Array.isArray(node['answerOption']))
    return { valueCoding: { code: String(value) } };
  switch (node['type']) {
    case 'boolean':
      return { valueBoolean: value as boolean };
    case 'integer':
      return { valueInteger: value as number };
    case 'decimal':
      return { valueDecimal: value as number };
    case 'quantity':
      return { valueQuantity: { value: value as number } };
    case 'date':
      return { valueDate: value as string };
    case 'dateTime':
      return { valueDateTime: `${String(value)}T10:00:00Z` };
    case 'time':
      return { valueTime: value as string };
    case 'choice':
      return { valueCoding: { code: String(value) } };
    case 'open-choice':
      return options.includes(String(value))
        ? { valueCoding: { code: String(value) } }
        : { valueString: String(value) };
    default:
      return { valueString: String(value) };
  }
}

describeWithFixtures('FHIR R4 semantics on the real forms (property)', () => {
  it.each(
    [
      'cds-library-Questionnaire-R4-HomeOxygenTherapy.json',
      'cds-library-Questionnaire-R4-HomeBloodGlucoseMonitorOrder.json',
      'cds-library-Questionnaire-R4-LowerLimbProsthesis.json',
      'lforms-enableWhen-test.R4.json',
    ].flatMap((file) => [
      [file, 'as published'],
      [file, 'with every question required, so every enabled-state is observed'],
    ]),
  )('%s %s: outstanding questions match', (file, variant) => {
    const form = JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as Node;
    if (variant !== 'as published') for (const node of questionsOf(form)) node['required'] = true;
    const template = importFhirQuestionnaire(form);
    const imported = new Set(template.groups.flatMap((group) => group.items.map((item) => item.linkId)));
    // Forms whose enableWhen reads the expression-only items are compared on what the engine keeps.
    const questions = questionsOf(form).filter((node) => imported.has(node['linkId'] as string));
    const conditionValues = new Map<string, Value[]>();
    for (const node of byAll(form)) {
      for (const condition of (node['enableWhen'] as Node[] | undefined) ?? []) {
        const source = questions.find((question) => question['linkId'] === condition['question']);
        const value = source && plain(source['type'], condition, 'answer');
        if (source && value !== undefined)
          conditionValues.set(source['linkId'] as string, [
            ...(conditionValues.get(source['linkId'] as string) ?? []),
            value,
          ]);
      }
    }
    const candidates = questions.map((node): Value[] => {
      const extra = conditionValues.get(node['linkId'] as string) ?? [];
      switch (node['type']) {
        case 'boolean':
          return [true, false];
        case 'integer':
        case 'quantity':
          return [0, 4, 5, 34, ...extra.filter((value) => Number.isInteger(value))];
        case 'decimal':
          return [1.5, 4.8, 5.6, ...extra.filter((value) => typeof value === 'number')];
        case 'date':
        case 'dateTime':
          return ['2020-04-30', '2020-05-01', '2021-01-01'];
        case 'time':
          return ['09:00:00', '13:30:00'];
        case 'choice':
        case 'open-choice':
          return [...optionsOf(form, node), ...extra.map(String), 'free text'].filter(
            (value) => node['type'] === 'open-choice' || value !== 'free text',
          );
        default:
          return ['test', 'tes', 'testing', 'B', 'x', ...extra.map(String)];
      }
    });
    const answerSets = fc.tuple(
      ...candidates.map((values) =>
        values.length === 0 ? fc.constant(undefined) : fc.option(fc.constantFrom(...values), { freq: 2 }),
      ),
    );
    fc.assert(
      fc.property(answerSets, (picked) => {
        const given = new Map<string, Value[]>();
        picked.forEach((value, position) => {
          if (value !== undefined && value !== null)
            given.set(questions[position]!['linkId'] as string, [value]);
        });
        const response = {
          item: [...given].map(([linkId, values]) => {
            const node = questions.find((question) => question['linkId'] === linkId)!;
            return {
              linkId,
              answer: values.map((value) => engineAnswer(node, value, optionsOf(form, node))),
            };
          }),
        };
        const engine = evaluateRequirements(template, [], response, [])
          .questions.map((question) => question.linkId)
          .sort();
        expect(engine).toEqual(fhirOutstanding(form, given));
      }),
      { numRuns: 300, seed: 18 },
    );
  });
});

function byAll(node: Node, into: Node[] = []): Node[] {
  for (const child of children(node)) {
    into.push(child);
    byAll(child, into);
  }
  return into;
}
