import {
  answerKind,
  dateOf,
  fitsValueType,
  isValidDate,
  type AnswerConstraints,
  type AnswerKind,
} from './answer-validator';
import {
  compileCondition,
  isRecord,
  type CompiledCondition,
  type ConditionProblem,
  type ConditionScope,
} from './condition-evaluator';
import {
  ANSWER_CONSTRAINTS,
  ANSWER_TYPES as ANSWER_TYPE_LIST,
  type Answer,
  type AnswerType,
  type DocumentRequirement,
  type QuestionnaireGroupRule,
  type QuestionnaireItemTemplate,
  type QuestionnaireTemplate,
  type ValueType,
} from './questionnaire.types';
import { templateInvalid, type TemplateProblem } from './template-problem';

export interface CompiledItem extends AnswerConstraints {
  index: number;
  item: QuestionnaireItemTemplate;
  required: boolean;
  repeats: boolean;
  /** Option codes; undefined when the item has no options (any code is accepted). */
  optionCodes: ReadonlySet<string> | undefined;
  notAllowedWhen: CompiledCondition | undefined;
  requiredWhen: CompiledCondition | undefined;
  valuesWhen: ReadonlyArray<{ when: CompiledCondition; values: ReadonlySet<string> }>;
  textWhen: ReadonlyArray<{ when: CompiledCondition; text: string }>;
}

/** A validated template with everything evaluation needs precomputed. Treat templates as immutable. */
export interface CompiledTemplate {
  template: QuestionnaireTemplate;
  /** Items in template order (groups in order, items in order). */
  items: readonly CompiledItem[];
  indexByLinkId: ReadonlyMap<string, number>;
  /** Item indexes ordered so each item follows every item its `notAllowedWhen` reads. */
  allowedOrder: readonly number[];
  /** Group rules that can ask for an answer (required groups), with their items' indexes. */
  requiredGroups: readonly CompiledGroupRule[];
  /** Repeating groups, with their items' indexes: answers to those items are kept per group instance. */
  repeatingGroups: readonly CompiledRepeatingGroup[];
  /** Per item index: the index in `repeatingGroups` of the group it repeats with, or -1. */
  repeatingGroupOf: readonly number[];
}

export interface CompiledRepeatingGroup {
  rule: QuestionnaireGroupRule;
  indexes: readonly number[];
}

export interface CompiledGroupRule {
  rule: QuestionnaireGroupRule;
  indexes: readonly number[];
  /** Undefined when the group is required unconditionally. */
  requiredWhen: CompiledCondition | undefined;
}

export interface CompiledDocumentRequirement {
  requirement: DocumentRequirement;
  requiredWhen: CompiledCondition | undefined;
}

const ANSWER_TYPES: ReadonlySet<string> = new Set<string>(ANSWER_TYPE_LIST);
// Each refinement belongs to one answer type.
const VALUE_TYPES: ReadonlyMap<string, AnswerType> = new Map<ValueType, AnswerType>([
  ['integer', 'decimal'],
  ['quantity', 'decimal'],
  ['time', 'string'],
  ['dateTime', 'date'],
]);
const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

// Keyed by object identity: a template loaded once is compiled once, and dropped with it.
const compiledTemplates = new WeakMap<QuestionnaireTemplate, CompiledTemplate>();

/**
 * Compiled templates by id and version, for copies of a template read again (a case's questionnaire is read
 * from its row on every request): a template version is immutable, so its compilation is derived data kept
 * across reads (decision 0036). Each entry keeps the serialized template it was compiled from and is used only
 * for an equal one, so a template changed without a new version (or a test's ad-hoc template) is compiled
 * afresh instead of answered from the wrong entry. Bounded: the least recently used version is dropped first.
 */
export const COMPILED_TEMPLATE_CACHE_SIZE = 256;
/** Serializations of one id and version differ only in key order (a stored copy against the original). */
const VARIANTS_PER_VERSION = 4;
const compiledVersions = new Map<string, Array<{ serialized: string; compiled: CompiledTemplate }>>();
/*
 * The last document requirements compiled against each template, and what they compiled to, so one that is
 * compiled again (a request that reads a case twice) is compiled once. Only the last is kept per template: a
 * weak map keyed by each array kept every case's compilation, since V8's young-generation collections keep a
 * weak map's values until a full collection (docs/performance.md, twenty-ninth round).
 */
const lastCompiledDocuments = new WeakMap<
  CompiledTemplate,
  { documentRequirements: readonly DocumentRequirement[]; result: readonly CompiledDocumentRequirement[] }
>();

/**
 * Validates and compiles a template, memoised per template object. Throws `DomainError('template_invalid')`
 * listing every problem: duplicate linkIds, conditions on unknown linkIds, malformed conditions, a cycle among
 * `notAllowedWhen` conditions, invalid patterns, bounds, options or defaults.
 */
export function compileTemplate(template: QuestionnaireTemplate): CompiledTemplate {
  const cached = compiledTemplates.get(template);
  if (cached) return cached;
  const key = versionKeyOf(template);
  const serialized = key === undefined ? undefined : JSON.stringify(template);
  const variants = key === undefined ? undefined : compiledVersions.get(key);
  const hit = variants?.find((variant) => variant.serialized === serialized);
  if (key !== undefined && variants && hit) {
    // Most recently used last.
    compiledVersions.delete(key);
    compiledVersions.set(key, variants);
    compiledTemplates.set(template, hit.compiled);
    return hit.compiled;
  }
  const compiled = buildCompiledTemplate(template);
  compiledTemplates.set(template, compiled);
  if (key !== undefined && serialized !== undefined) {
    const kept = [...(variants ?? []).slice(1 - VARIANTS_PER_VERSION), { serialized, compiled }];
    compiledVersions.delete(key);
    compiledVersions.set(key, kept);
    if (compiledVersions.size > COMPILED_TEMPLATE_CACHE_SIZE) {
      const oldest = compiledVersions.keys().next().value;
      if (oldest !== undefined) compiledVersions.delete(oldest);
    }
  }
  return compiled;
}

/** The id and version of a well-formed template, or undefined (such a template is not kept by version). */
function versionKeyOf(template: QuestionnaireTemplate): string | undefined {
  if (!isRecord(template)) return undefined;
  const { id, version } = template as unknown as Record<string, unknown>;
  return typeof id === 'string' && typeof version === 'string' ? JSON.stringify([id, version]) : undefined;
}

/** Compiles document requirements against a compiled template (the last array memoised); throws `template_invalid`. */
export function compileDocumentRequirements(
  compiled: CompiledTemplate,
  documentRequirements: readonly DocumentRequirement[],
): readonly CompiledDocumentRequirement[] {
  const last = lastCompiledDocuments.get(compiled);
  if (last?.documentRequirements === documentRequirements) return last.result;
  const problems: TemplateProblem[] = [];
  const scope = scopeOf(compiled.items, compiled.indexByLinkId);
  const result = documentRequirements.map((requirement): CompiledDocumentRequirement => {
    if (!isRecord(requirement) || typeof requirement.type !== 'string' || requirement.type === '') {
      problems.push({ code: 'invalid_document_requirement', message: 'a document requirement needs a type' });
      return { requirement, requiredWhen: undefined };
    }
    const requiredWhen =
      requirement.requiredWhen === undefined
        ? undefined
        : compileCondition(requirement.requiredWhen, scope, (problem) =>
            problems.push({ ...fromConditionProblem(problem), documentType: requirement.type }),
          );
    return { requirement, requiredWhen };
  });
  if (problems.length > 0) throw templateInvalid(compiled.template.id, problems);
  lastCompiledDocuments.set(compiled, { documentRequirements, result });
  return result;
}

function buildCompiledTemplate(template: QuestionnaireTemplate): CompiledTemplate {
  const problems: TemplateProblem[] = [];
  const templateId = isRecord(template) && typeof template.id === 'string' ? template.id : undefined;
  const rawItems = collectItems(template, problems);
  if (problems.length > 0) throw templateInvalid(templateId, problems);

  // First pass: identity and per-item constraints, so conditions can be checked against every item's type.
  const indexByLinkId = new Map<string, number>();
  const shells = rawItems.map((item, index) => {
    const shell = compileItemShell(item, index, problems);
    if (indexByLinkId.has(shell.linkId)) {
      problems.push({
        code: 'duplicate_link_id',
        linkId: shell.linkId,
        message: 'linkId is used more than once',
      });
    } else {
      indexByLinkId.set(shell.linkId, index);
    }
    return shell;
  });
  const scope = scopeOf(shells, indexByLinkId);

  // Second pass: conditions, which may read any item.
  const dependencies: Array<Set<number>> = [];
  const items = shells.map((shell): CompiledItem => {
    const { item, linkId } = shell;
    const report = (problem: ConditionProblem): void => {
      problems.push({ ...fromConditionProblem(problem), linkId });
    };
    const reads = new Set<number>();
    dependencies.push(reads);
    const notAllowedWhen =
      item.notAllowedWhen === undefined
        ? undefined
        : compileCondition(item.notAllowedWhen, scope, report, reads);
    const requiredWhen =
      item.requiredWhen === undefined ? undefined : compileCondition(item.requiredWhen, scope, report);
    return {
      ...shell,
      notAllowedWhen,
      requiredWhen,
      valuesWhen: compileValuesWhen(shell, scope, report, problems),
      textWhen: compileTextWhen(shell, scope, report, problems),
    };
  });

  const allowedOrder = topologicalOrder(dependencies, (index) => items[index]?.linkId ?? '', problems);
  const { requiredGroups, repeatingGroups } = compileGroupRules(template, indexByLinkId, scope, problems);
  checkDisplays(template, indexByLinkId, scope, problems);
  const repeatingGroupOf = new Array<number>(items.length).fill(-1);
  repeatingGroups.forEach(({ rule, indexes }, group) => {
    for (const index of indexes) {
      if (repeatingGroupOf[index] !== -1) {
        problems.push({
          code: 'invalid_group',
          linkId: rule.linkId,
          message: `item "${items[index]?.linkId ?? ''}" is inside two repeating groups; nested repeating groups are not supported`,
        });
      }
      repeatingGroupOf[index] = group;
    }
  });
  if (problems.length > 0) throw templateInvalid(templateId, problems);
  return { template, items, indexByLinkId, allowedOrder, requiredGroups, repeatingGroups, repeatingGroupOf };
}

function compileGroupRules(
  template: QuestionnaireTemplate,
  indexByLinkId: ReadonlyMap<string, number>,
  scope: ConditionScope,
  problems: TemplateProblem[],
): { requiredGroups: CompiledGroupRule[]; repeatingGroups: CompiledRepeatingGroup[] } {
  const compiled: CompiledGroupRule[] = [];
  const repeating: CompiledRepeatingGroup[] = [];
  const result = { requiredGroups: compiled, repeatingGroups: repeating };
  const rules: unknown = template.groupRules;
  if (rules === undefined) return result;
  if (!Array.isArray(rules)) {
    problems.push({ code: 'invalid_group', message: 'groupRules must be an array' });
    return result;
  }
  const seen = new Set<string>();
  for (const rule of rules as unknown[]) {
    if (
      !isRecord(rule) ||
      typeof rule['linkId'] !== 'string' ||
      typeof rule['text'] !== 'string' ||
      !Array.isArray(rule['linkIds'])
    ) {
      problems.push({ code: 'invalid_group', message: 'a group rule needs a linkId, a text and linkIds' });
      continue;
    }
    const linkId = rule['linkId'];
    const problem = (message: string): void => {
      problems.push({ code: 'invalid_group', linkId, message });
    };
    if (seen.has(linkId) || indexByLinkId.has(linkId)) problem('linkId is used more than once');
    seen.add(linkId);
    const indexes: number[] = [];
    for (const member of rule['linkIds'] as unknown[]) {
      const index = typeof member === 'string' ? indexByLinkId.get(member) : undefined;
      if (index === undefined) problem(`the group lists an unknown item "${String(member)}"`);
      else indexes.push(index);
    }
    for (const flag of ['required', 'repeats'])
      if (rule[flag] !== undefined && typeof rule[flag] !== 'boolean') problem(`${flag} must be a boolean`);
    const requiredWhen =
      rule['requiredWhen'] === undefined
        ? undefined
        : compileCondition(rule['requiredWhen'], scope, (conditionProblem) =>
            problems.push({ ...fromConditionProblem(conditionProblem), linkId }),
          );
    if (rule['required'] === true || requiredWhen !== undefined) {
      compiled.push({ rule: rule as unknown as QuestionnaireGroupRule, indexes, requiredWhen });
    }
    if (rule['repeats'] === true) {
      repeating.push({ rule: rule as unknown as QuestionnaireGroupRule, indexes: [...new Set(indexes)] });
    }
  }
  return result;
}

/** Display texts take no answer; they need a unique linkId, a text, a place among the items, a valid condition. */
function checkDisplays(
  template: QuestionnaireTemplate,
  indexByLinkId: ReadonlyMap<string, number>,
  scope: ConditionScope,
  problems: TemplateProblem[],
): void {
  const seen = new Set<string>();
  for (const group of template.groups) {
    const displays: unknown = group.displays;
    if (displays === undefined) continue;
    if (!Array.isArray(displays)) {
      problems.push({ code: 'invalid_group', linkId: group.id, message: 'displays must be an array' });
      continue;
    }
    for (const display of displays as unknown[]) {
      if (!isRecord(display) || typeof display['linkId'] !== 'string' || display['linkId'] === '') {
        problems.push({ code: 'invalid_item', message: `a display in group "${group.id}" has no linkId` });
        continue;
      }
      const linkId = display['linkId'];
      const problem = (message: string): void => {
        problems.push({ code: 'invalid_item', linkId, message });
      };
      if (seen.has(linkId) || indexByLinkId.has(linkId)) problem('linkId is used more than once');
      seen.add(linkId);
      if (typeof display['text'] !== 'string') problem('text must be a string');
      const position = display['position'];
      if (
        typeof position !== 'number' ||
        !Number.isInteger(position) ||
        position < 0 ||
        position > group.items.length
      ) {
        problem(`position must be a whole number from 0 to ${group.items.length}`);
      }
      if (display['hiddenWhen'] !== undefined) {
        compileCondition(display['hiddenWhen'], scope, (conditionProblem) =>
          problems.push({ ...fromConditionProblem(conditionProblem), linkId }),
        );
      }
    }
  }
}

function collectItems(template: unknown, problems: TemplateProblem[]): QuestionnaireItemTemplate[] {
  if (!isRecord(template) || typeof template['id'] !== 'string' || !Array.isArray(template['groups'])) {
    problems.push({ code: 'invalid_template', message: 'a template needs an id and a groups array' });
    return [];
  }
  const items: QuestionnaireItemTemplate[] = [];
  const groupIds = new Set<string>();
  for (const group of template['groups'] as unknown[]) {
    if (!isRecord(group) || typeof group['id'] !== 'string' || !Array.isArray(group['items'])) {
      problems.push({ code: 'invalid_group', message: 'a group needs an id and an items array' });
      continue;
    }
    if (groupIds.has(group['id'])) {
      problems.push({
        code: 'duplicate_group_id',
        linkId: group['id'],
        message: 'group id is used more than once',
      });
    }
    groupIds.add(group['id']);
    for (const item of group['items'] as unknown[]) {
      if (!isRecord(item) || typeof item['linkId'] !== 'string' || item['linkId'] === '') {
        problems.push({ code: 'invalid_item', message: `an item in group "${group['id']}" has no linkId` });
        continue;
      }
      items.push(item as unknown as QuestionnaireItemTemplate);
    }
  }
  return items;
}

type ItemShell = Omit<CompiledItem, 'notAllowedWhen' | 'requiredWhen' | 'valuesWhen' | 'textWhen'>;

function compileItemShell(
  item: QuestionnaireItemTemplate,
  index: number,
  problems: TemplateProblem[],
): ItemShell {
  const linkId = item.linkId;
  const problem = (code: TemplateProblem['code'], message: string): void => {
    problems.push({ code, linkId, message });
  };

  const answerType: AnswerType = ANSWER_TYPES.has(item.answerType) ? item.answerType : 'string';
  if (!ANSWER_TYPES.has(item.answerType))
    problem('invalid_item', `unknown answerType "${String(item.answerType)}"`);
  if (typeof item.text !== 'string') problem('invalid_item', 'text must be a string');
  if (typeof item.required !== 'boolean') problem('invalid_item', 'required must be a boolean');
  if (item.repeats !== undefined && typeof item.repeats !== 'boolean')
    problem('invalid_item', 'repeats must be a boolean');
  if (item.errorMessage !== undefined && typeof item.errorMessage !== 'string') {
    problem('invalid_item', 'errorMessage must be a string');
  }

  let optionCodes: Set<string> | undefined;
  if (item.options !== undefined) {
    if (!Array.isArray(item.options)) {
      problem('invalid_option', 'options must be an array');
    } else if (item.options.length > 0) {
      optionCodes = new Set();
      for (const option of item.options as unknown[]) {
        if (!isRecord(option) || typeof option['code'] !== 'string' || option['code'] === '') {
          problem('invalid_option', 'every option needs a non-empty code');
        } else if (optionCodes.has(option['code'])) {
          problem('invalid_option', `option code "${option['code']}" is used more than once`);
        } else {
          optionCodes.add(option['code']);
        }
      }
    }
  }

  const constraint = item.answerConstraint;
  if (constraint !== undefined && !(ANSWER_CONSTRAINTS as readonly string[]).includes(constraint)) {
    problem('invalid_item', `unknown answerConstraint "${String(constraint)}"`);
  }
  const acceptsString = constraint === 'optionsOrString' && answerType === 'coding';
  if (constraint === 'optionsOrString' && answerType !== 'coding') {
    problem('invalid_item', 'answerConstraint optionsOrString applies only to coding items');
  }

  let pattern: RegExp | undefined;
  if (item.pattern !== undefined) {
    try {
      if (typeof item.pattern !== 'string') throw new TypeError('not a string');
      // Compile the pattern alone first so wrapping it cannot make an invalid pattern look valid.
      new RegExp(item.pattern);
      // A pattern constrains the whole answer, as HTML and FHIR patterns do.
      pattern = new RegExp(`^(?:${item.pattern})$`);
    } catch {
      problem('invalid_pattern', 'pattern is not a valid regular expression');
    }
  }

  for (const [name, limit] of [
    ['maxLength', item.maxLength],
    ['minLength', item.minLength],
  ] as const) {
    if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)) {
      problem('invalid_item', `${name} must be a non-negative integer`);
    }
  }

  const valueType = item.valueType;
  if (valueType !== undefined && VALUE_TYPES.get(valueType) !== answerType) {
    problem('invalid_item', `valueType "${String(valueType)}" does not refine answerType "${answerType}"`);
  }
  let units: Set<string> | undefined;
  if (item.units !== undefined) {
    if (!Array.isArray(item.units) || valueType !== 'quantity') {
      problem('invalid_item', 'units must be an array of codings on a quantity item');
    } else if (item.units.length > 0) {
      units = new Set();
      for (const unit of item.units as unknown[]) {
        const parts = isRecord(unit) ? [unit['code'], unit['display']] : [];
        const named = parts.filter((part): part is string => typeof part === 'string' && part !== '');
        if (named.length === 0) problem('invalid_item', 'every unit needs a code or a display');
        for (const part of named) units.add(part);
      }
    }
  }

  const min = parseBound(item.min, 'min', answerType, problem);
  const max = parseBound(item.max, 'max', answerType, problem);
  const inverted =
    typeof min === 'number' && typeof max === 'number'
      ? min > max
      : typeof min === 'string' && typeof max === 'string' && min > max;
  if (inverted) problem('invalid_bound', 'min is greater than max');

  const accepted: AnswerKind[] = acceptsString ? ['coding', 'string'] : [answerType];
  if (item.defaultValue !== undefined) {
    const kind = answerKind(item.defaultValue);
    if (kind === undefined || !accepted.includes(kind)) {
      problem('invalid_default_value', `defaultValue must be a single ${accepted.join(' or ')} value`);
    } else if (!fitsValueType(item.defaultValue, valueType)) {
      problem('invalid_default_value', 'defaultValue does not fit the item type');
    } else if (kind === 'date' && !isValidDate(dateOf(item.defaultValue as Answer) ?? '')) {
      problem('invalid_default_value', 'defaultValue must be a YYYY-MM-DD date');
    } else if (
      kind === 'coding' &&
      optionCodes &&
      !optionCodes.has(item.defaultValue.valueCoding?.code ?? '')
    ) {
      problem('invalid_default_value', 'defaultValue is not one of the options');
    }
  }

  return {
    index,
    item,
    linkId,
    answerType,
    valueType: valueType !== undefined && VALUE_TYPES.has(valueType) ? valueType : undefined,
    units,
    minLength: typeof item.minLength === 'number' ? item.minLength : undefined,
    acceptsString,
    required: item.required === true,
    repeats: item.repeats === true,
    optionCodes,
    pattern,
    maxLength: typeof item.maxLength === 'number' ? item.maxLength : undefined,
    min,
    max,
    errorMessage: typeof item.errorMessage === 'string' ? item.errorMessage : undefined,
  };
}

function parseBound(
  raw: unknown,
  name: 'min' | 'max',
  answerType: AnswerType,
  problem: (code: TemplateProblem['code'], message: string) => void,
): number | string | undefined {
  if (raw === undefined) return undefined;
  if (answerType === 'decimal') {
    if (typeof raw === 'string' && DECIMAL_TEXT.test(raw.trim())) return Number(raw);
    problem('invalid_bound', `${name} must be a decimal number for a decimal item`);
    return undefined;
  }
  if (answerType === 'date') {
    if (typeof raw === 'string' && isValidDate(raw)) return raw;
    problem('invalid_bound', `${name} must be a YYYY-MM-DD date for a date item`);
    return undefined;
  }
  problem('invalid_bound', `${name} applies only to decimal and date items`);
  return undefined;
}

function compileValuesWhen(
  shell: ItemShell,
  scope: ConditionScope,
  report: (problem: ConditionProblem) => void,
  problems: TemplateProblem[],
): CompiledItem['valuesWhen'] {
  const valuesWhen: unknown = shell.item.valuesWhen;
  if (valuesWhen === undefined) return [];
  const invalid = (message: string): void => {
    problems.push({ code: 'invalid_condition', linkId: shell.linkId, message });
  };
  if (shell.answerType !== 'coding') invalid('valuesWhen applies only to coding items');
  if (!isRecord(valuesWhen) || !Array.isArray(valuesWhen['cases'])) {
    invalid('valuesWhen needs a cases array');
    return [];
  }
  return (valuesWhen['cases'] as unknown[]).map((entry) => {
    const values =
      isRecord(entry) && Array.isArray(entry['values']) ? (entry['values'] as unknown[]) : undefined;
    if (!isRecord(entry) || !values || values.some((value) => typeof value !== 'string')) {
      invalid('every valuesWhen case needs a when condition and a values array of codes');
      return { when: () => false, values: new Set<string>() };
    }
    const unknown = values.filter((value) => shell.optionCodes && !shell.optionCodes.has(value as string));
    if (unknown.length > 0) invalid(`valuesWhen lists codes that are not options: ${unknown.join(', ')}`);
    return { when: compileCondition(entry['when'], scope, report), values: new Set(values as string[]) };
  });
}

function compileTextWhen(
  shell: ItemShell,
  scope: ConditionScope,
  report: (problem: ConditionProblem) => void,
  problems: TemplateProblem[],
): CompiledItem['textWhen'] {
  const textWhen: unknown = shell.item.textWhen;
  if (textWhen === undefined) return [];
  if (!isRecord(textWhen) || !Array.isArray(textWhen['cases'])) {
    problems.push({
      code: 'invalid_condition',
      linkId: shell.linkId,
      message: 'textWhen needs a cases array',
    });
    return [];
  }
  return (textWhen['cases'] as unknown[]).map((entry) => {
    if (!isRecord(entry) || typeof entry['text'] !== 'string') {
      problems.push({
        code: 'invalid_condition',
        linkId: shell.linkId,
        message: 'every textWhen case needs a when condition and a text',
      });
      return { when: () => false, text: '' };
    }
    return { when: compileCondition(entry['when'], scope, report), text: entry['text'] };
  });
}

function scopeOf(
  items: ReadonlyArray<Pick<ItemShell, 'answerType' | 'acceptsString'>>,
  indexByLinkId: ReadonlyMap<string, number>,
): ConditionScope {
  return {
    indexOf: (linkId) => indexByLinkId.get(linkId),
    acceptedKinds: (index) => {
      const item = items[index];
      if (!item) return [];
      return item.acceptsString ? ['coding', 'string'] : [item.answerType];
    },
  };
}

function fromConditionProblem(problem: ConditionProblem): TemplateProblem {
  return {
    code: problem.code,
    ...(problem.reference === undefined ? {} : { reference: problem.reference }),
    message: problem.message,
  };
}

/**
 * Kahn's algorithm over "item reads item" edges; iterative, so deep chains cannot overflow the stack. Ties
 * keep template order, which keeps evaluation deterministic. Reports one cycle when the graph has any.
 */
function topologicalOrder(
  dependencies: ReadonlyArray<ReadonlySet<number>>,
  linkIdAt: (index: number) => string,
  problems: TemplateProblem[],
): number[] {
  const count = dependencies.length;
  const pending = dependencies.map((reads) => reads.size);
  const dependents: number[][] = Array.from({ length: count }, () => []);
  dependencies.forEach((reads, index) => {
    for (const read of reads) dependents[read]?.push(index);
  });
  const order: number[] = [];
  for (let index = 0; index < count; index += 1) if (pending[index] === 0) order.push(index);
  for (let head = 0; head < order.length; head += 1) {
    for (const dependent of dependents[order[head] as number] ?? []) {
      const left = (pending[dependent] ?? 0) - 1;
      pending[dependent] = left;
      if (left === 0) order.push(dependent);
    }
  }
  if (order.length === count) return order;

  // Every item left over reads another left-over item, so walking reads from one must revisit a node.
  const start = pending.findIndex((left) => left > 0);
  const path: number[] = [];
  const position = new Map<number, number>();
  let current = start;
  while (!position.has(current)) {
    position.set(current, path.length);
    path.push(current);
    const next = [...(dependencies[current] ?? [])].find((read) => (pending[read] ?? 0) > 0);
    if (next === undefined) break;
    current = next;
  }
  const cycle = [...path.slice(position.get(current) ?? 0), current].map(linkIdAt);
  problems.push({
    code: 'condition_cycle',
    linkId: cycle[0] ?? '',
    cycle,
    message: `notAllowedWhen conditions form a cycle: ${cycle.join(' -> ')}`,
  });
  return order;
}
