import { isValidDate } from './answer-validator';
import { isRecord } from './condition-evaluator';
import type {
  Answer,
  AnswerOption,
  AnswerType,
  Coding,
  ComparisonOperator,
  Condition,
  QuestionnaireGroupTemplate,
  QuestionnaireItemTemplate,
  QuestionnaireTemplate,
} from './questionnaire.types';
import { templateInvalid, type TemplateProblem } from './template-problem';
import { validateTemplate } from './template-validator';

export interface FhirImportOptions {
  /** Overrides the template id (default: the Questionnaire's id, else name, else its title slugged). */
  id?: string;
  /** Overrides the template version (default: the Questionnaire's version, else "1"). */
  version?: string;
  /** Title of the group collecting top-level questions that are not in a group. */
  defaultGroupTitle?: string;
}

const EXTENSION_REGEX = 'http://hl7.org/fhir/StructureDefinition/regex';
const EXTENSION_MIN_VALUE = 'http://hl7.org/fhir/StructureDefinition/minValue';
const EXTENSION_MAX_VALUE = 'http://hl7.org/fhir/StructureDefinition/maxValue';
// FHIR `time` has no answer type of its own here: it becomes a string constrained to hh:mm[:ss].
const TIME_PATTERN = '([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?';
const OPERATORS: ReadonlySet<string> = new Set(['exists', '=', '!=', '>', '<', '>=', '<=']);

// A Map, not an object literal, so a type like "constructor" cannot resolve to an Object.prototype member.
const TYPE_MAP: ReadonlyMap<string, AnswerType> = new Map<string, AnswerType>([
  ['string', 'string'],
  ['text', 'string'],
  ['url', 'string'],
  ['time', 'string'],
  ['date', 'date'],
  ['dateTime', 'date'],
  ['boolean', 'boolean'],
  ['decimal', 'decimal'],
  ['integer', 'decimal'],
  ['quantity', 'decimal'],
  ['choice', 'coding'],
  ['open-choice', 'coding'],
]);

/** A FHIR item's enableWhen list, which applies to the item and (FHIR) to all its descendants. */
interface Gate {
  owner: string;
  enableWhen: unknown[];
  behavior: unknown;
}

interface PendingItem {
  fhir: Record<string, unknown>;
  linkId: string;
  answerType: AnswerType;
  acceptsString: boolean;
  options: AnswerOption[] | undefined;
  gates: Gate[];
}

interface PendingGroup {
  id: string;
  title: string;
  items: PendingItem[];
}

/**
 * Converts a FHIR R4 Questionnaire into a template. Pure: contained ValueSets are resolved, external ones are
 * left unconstrained. Top-level groups become groups; nested groups and questions' children are flattened into
 * them with their ancestors' enableWhen conjoined (a disabled item disables its descendants); top-level
 * questions go into a default group. enableWhen C becomes `notAllowedWhen: {not: C}`, and for required items
 * `requiredWhen: C` with `required: false` (FHIR requires an item only while enabled). display items and
 * `enableWhenExpression` (FHIRPath) are not imported. Throws `template_invalid` listing every problem, and
 * runs `validateTemplate`, so unknown linkIds and cycles are rejected here.
 */
export function importFhirQuestionnaire(
  json: unknown,
  options: FhirImportOptions = {},
): QuestionnaireTemplate {
  if (!isRecord(json) || json['resourceType'] !== 'Questionnaire') {
    throw templateInvalid(options.id, [
      { code: 'invalid_questionnaire', message: 'expected a FHIR R4 Questionnaire resource' },
    ]);
  }
  const id = options.id ?? templateIdOf(json);
  const importer = new QuestionnaireImporter(json);
  const groups = importer.run(options.defaultGroupTitle ?? 'General');
  if (importer.problems.length > 0) throw templateInvalid(id, importer.problems);

  const template: QuestionnaireTemplate = {
    id,
    version: options.version ?? (typeof json['version'] === 'string' ? json['version'] : '1'),
    title: stringOr(json['title'], stringOr(json['name'], id)),
    groups,
  };
  validateTemplate(template);
  return template;
}

class QuestionnaireImporter {
  readonly problems: TemplateProblem[] = [];
  private readonly questions = new Map<string, PendingItem>();
  private readonly otherLinkIds = new Set<string>();
  private readonly gateConditions = new Map<Gate, Condition | undefined>();

  constructor(private readonly questionnaire: Record<string, unknown>) {}

  run(defaultGroupTitle: string): QuestionnaireGroupTemplate[] {
    const pending = this.collect(defaultGroupTitle);
    return pending.map((group) => ({
      id: group.id,
      title: group.title,
      items: group.items.map((item) => this.buildItem(item)),
    }));
  }

  private collect(defaultGroupTitle: string): PendingGroup[] {
    const groups: PendingGroup[] = [];
    let defaultGroup: PendingGroup | undefined;
    for (const node of this.children(this.questionnaire)) {
      const linkId = this.linkIdOf(node);
      if (linkId === undefined) continue;
      if (node['type'] === 'group') {
        this.otherLinkIds.add(linkId);
        const group: PendingGroup = { id: linkId, title: stringOr(node['text'], linkId), items: [] };
        groups.push(group);
        this.walk(this.children(node), group, this.gatesOf(node, linkId, []));
      } else if (node['type'] === 'display') {
        this.otherLinkIds.add(linkId);
      } else {
        if (!defaultGroup) {
          // Placed where the first loose question appears, keeping the form's order.
          defaultGroup = { id: uniqueGroupId(this.questionnaire), title: defaultGroupTitle, items: [] };
          groups.push(defaultGroup);
        }
        this.addQuestion(node, linkId, defaultGroup, []);
      }
    }
    return groups;
  }

  private walk(nodes: Array<Record<string, unknown>>, group: PendingGroup, gates: Gate[]): void {
    for (const node of nodes) {
      const linkId = this.linkIdOf(node);
      if (linkId === undefined) continue;
      if (node['type'] === 'group') {
        this.otherLinkIds.add(linkId);
        this.walk(this.children(node), group, this.gatesOf(node, linkId, gates));
      } else if (node['type'] === 'display') {
        this.otherLinkIds.add(linkId);
      } else {
        this.addQuestion(node, linkId, group, gates);
      }
    }
  }

  private addQuestion(
    node: Record<string, unknown>,
    linkId: string,
    group: PendingGroup,
    inherited: Gate[],
  ): void {
    const gates = this.gatesOf(node, linkId, inherited);
    const type = node['type'];
    let answerType = typeof type === 'string' ? TYPE_MAP.get(type) : undefined;
    if (answerType === undefined) {
      this.problem('unsupported_item_type', linkId, `item type "${String(type)}" is not supported`);
      answerType = 'string';
    }
    const options = this.optionsOf(node, linkId);
    if (options !== undefined) answerType = 'coding';
    const pending: PendingItem = {
      fhir: node,
      linkId,
      answerType,
      acceptsString: type === 'open-choice',
      options,
      gates,
    };
    if (this.questions.has(linkId)) {
      this.problem('duplicate_link_id', linkId, 'linkId is used more than once');
    } else {
      this.questions.set(linkId, pending);
    }
    group.items.push(pending);
    // FHIR lets a question have child items; they are shown (and enabled) only with their parent.
    this.walk(this.children(node), group, gates);
  }

  private buildItem(pending: PendingItem): QuestionnaireItemTemplate {
    const { fhir, linkId, answerType } = pending;
    const required = this.flag(fhir['required'], linkId, 'required');
    const item: QuestionnaireItemTemplate = {
      linkId,
      text: stringOr(fhir['text'], linkId),
      required,
      answerType,
    };
    if (this.flag(fhir['repeats'], linkId, 'repeats')) item.repeats = true;
    if (pending.options !== undefined) item.options = pending.options;
    if (pending.acceptsString) item.answerConstraint = 'optionsOrString';

    const extensions = Array.isArray(fhir['extension']) ? fhir['extension'].filter(isRecord) : [];
    const regex = extensions.find((extension) => extension['url'] === EXTENSION_REGEX)?.['valueString'];
    if (typeof regex === 'string') item.pattern = regex;
    else if (fhir['type'] === 'time' && answerType === 'string') item.pattern = TIME_PATTERN;
    if (typeof fhir['maxLength'] === 'number') item.maxLength = fhir['maxLength'];
    if (answerType === 'decimal' || answerType === 'date') {
      const min = this.boundOf(extensions, EXTENSION_MIN_VALUE, answerType, linkId);
      const max = this.boundOf(extensions, EXTENSION_MAX_VALUE, answerType, linkId);
      if (min !== undefined) item.min = min;
      if (max !== undefined) item.max = max;
    }

    const defaultValue = this.defaultOf(pending);
    if (defaultValue !== undefined) item.defaultValue = defaultValue;

    const conditions = pending.gates
      .map((gate) => this.gateCondition(gate))
      .filter((condition): condition is Condition => condition !== undefined);
    const enabled =
      conditions.length === 0 ? undefined : conditions.length === 1 ? conditions[0] : { all: conditions };
    if (enabled !== undefined) {
      item.notAllowedWhen = { not: enabled };
      if (required) {
        item.required = false;
        item.requiredWhen = enabled;
      }
    }
    return item;
  }

  private gatesOf(node: Record<string, unknown>, linkId: string, inherited: Gate[]): Gate[] {
    const enableWhen = node['enableWhen'];
    if (enableWhen === undefined) return inherited;
    if (!Array.isArray(enableWhen)) {
      this.problem('invalid_condition', linkId, 'enableWhen must be an array');
      return inherited;
    }
    if (enableWhen.length === 0) return inherited;
    return [...inherited, { owner: linkId, enableWhen, behavior: node['enableBehavior'] }];
  }

  /** One gate's condition, built once even when many descendants share it (so problems are reported once). */
  private gateCondition(gate: Gate): Condition | undefined {
    if (this.gateConditions.has(gate)) return this.gateConditions.get(gate);
    const parts = gate.enableWhen
      .map((entry) => this.convertEnableWhen(entry, gate.owner))
      .filter((condition): condition is Condition => condition !== undefined);
    let condition: Condition | undefined;
    if (gate.behavior !== undefined && gate.behavior !== 'all' && gate.behavior !== 'any') {
      this.problem('invalid_condition', gate.owner, `unknown enableBehavior "${String(gate.behavior)}"`);
    } else if (parts.length === 1) {
      condition = parts[0];
    } else if (parts.length > 1) {
      // FHIR requires enableBehavior with several conditions; when it is missing, any one enabling is the
      // reading that hides the fewest questions.
      condition = gate.behavior === 'all' ? { all: parts } : { any: parts };
    }
    this.gateConditions.set(gate, condition);
    return condition;
  }

  private convertEnableWhen(entry: unknown, owner: string): Condition | undefined {
    if (!isRecord(entry)) {
      this.problem('invalid_condition', owner, 'an enableWhen entry must be an object');
      return undefined;
    }
    const question = entry['question'];
    const operator = entry['operator'];
    if (typeof question !== 'string' || question === '') {
      this.problem('invalid_condition', owner, 'an enableWhen entry needs a question linkId');
      return undefined;
    }
    if (typeof operator !== 'string' || !OPERATORS.has(operator)) {
      this.problem(
        'invalid_condition',
        owner,
        `enableWhen on "${question}" has unknown operator "${String(operator)}"`,
        question,
      );
      return undefined;
    }
    const fields = Object.keys(entry).filter((key) => key.startsWith('answer') && entry[key] !== undefined);
    const field = fields[0];
    if (fields.length !== 1 || field === undefined) {
      this.problem(
        'invalid_condition',
        owner,
        `enableWhen on "${question}" needs exactly one answer[x]`,
        question,
      );
      return undefined;
    }
    const value = entry[field];
    const source = field.slice('answer'.length);

    if (!this.questions.has(question) && this.otherLinkIds.has(question)) {
      this.problem(
        'invalid_condition',
        owner,
        `enableWhen reads "${question}", a group or display item`,
        question,
      );
      return undefined;
    }

    if (operator === 'exists') {
      const exists = source === 'Boolean' ? toBoolean(value) : undefined;
      if (exists === undefined) {
        this.problem(
          'invalid_condition',
          owner,
          `enableWhen "exists" on "${question}" needs answerBoolean`,
          question,
        );
        return undefined;
      }
      return { linkId: question, operator: 'exists', exists };
    }

    const target = this.questions.get(question);
    if (!target) {
      // Left for validateTemplate to reject, so unknown linkIds are reported the same way everywhere.
      return { linkId: question, operator: operator as ComparisonOperator, answer: { valueString: '' } };
    }
    const answer = convertValue(source, value, target);
    if (typeof answer === 'string') {
      this.problem('invalid_condition', owner, `enableWhen on "${question}": ${answer}`, question);
      return undefined;
    }
    return { linkId: question, operator: operator as ComparisonOperator, answer };
  }

  private optionsOf(node: Record<string, unknown>, linkId: string): AnswerOption[] | undefined {
    const options: AnswerOption[] = [];
    const answerOption = node['answerOption'];
    if (Array.isArray(answerOption)) {
      for (const entry of answerOption) {
        const option = isRecord(entry) ? optionOf(entry) : undefined;
        if (option) options.push(option);
        else this.problem('invalid_option', linkId, 'an answerOption has no usable value');
      }
    }
    const valueSet = node['answerValueSet'];
    if (typeof valueSet === 'string' && valueSet.startsWith('#')) {
      const contained = this.containedValueSet(valueSet.slice(1));
      if (contained) options.push(...contained);
      else this.problem('invalid_option', linkId, `answerValueSet "${valueSet}" is not a contained ValueSet`);
    }
    if (options.length === 0) return undefined;
    // Codes key answers; the same code under two systems collapses to its first display.
    const seen = new Set<string>();
    return options.filter((option) => {
      if (seen.has(option.code)) return false;
      seen.add(option.code);
      return true;
    });
  }

  private containedValueSet(id: string): AnswerOption[] | undefined {
    const contained = Array.isArray(this.questionnaire['contained']) ? this.questionnaire['contained'] : [];
    const valueSet = contained.find(
      (resource): resource is Record<string, unknown> =>
        isRecord(resource) && resource['resourceType'] === 'ValueSet' && resource['id'] === id,
    );
    if (!valueSet) return undefined;
    const options: AnswerOption[] = [];
    const expansion = valueSet['expansion'];
    if (isRecord(expansion) && Array.isArray(expansion['contains'])) {
      collectContains(expansion['contains'], options);
      return options;
    }
    const compose = valueSet['compose'];
    const includes = isRecord(compose) && Array.isArray(compose['include']) ? compose['include'] : [];
    for (const include of includes) {
      const concepts = isRecord(include) && Array.isArray(include['concept']) ? include['concept'] : [];
      for (const concept of concepts) {
        if (isRecord(concept) && typeof concept['code'] === 'string' && concept['code'] !== '') {
          options.push({ code: concept['code'], display: stringOr(concept['display'], concept['code']) });
        }
      }
    }
    return options;
  }

  private defaultOf(pending: PendingItem): Answer | undefined {
    const { fhir, linkId } = pending;
    const initial = Array.isArray(fhir['initial']) ? fhir['initial'][0] : undefined;
    let source: [string, unknown] | undefined;
    if (isRecord(initial)) {
      const field = Object.keys(initial).find((key) => key.startsWith('value'));
      if (field !== undefined) source = [field.slice('value'.length), initial[field]];
    } else if (Array.isArray(fhir['answerOption'])) {
      // R4 marks a preselected option with initialSelected instead of initial.
      const selected = fhir['answerOption'].find(
        (entry) => isRecord(entry) && entry['initialSelected'] === true,
      );
      const option = isRecord(selected) ? optionOf(selected) : undefined;
      if (option) return { valueCoding: { code: option.code } };
    }
    if (!source) return undefined;
    const answer = convertValue(source[0], source[1], pending);
    if (typeof answer === 'string') {
      this.problem('invalid_default_value', linkId, `initial value: ${answer}`);
      return undefined;
    }
    return answer;
  }

  private boundOf(
    extensions: Array<Record<string, unknown>>,
    url: string,
    answerType: 'decimal' | 'date',
    linkId: string,
  ): string | undefined {
    const extension = extensions.find((candidate) => candidate['url'] === url);
    if (!extension) return undefined;
    const numeric = extension['valueInteger'] ?? extension['valueDecimal'];
    if (answerType === 'decimal' && typeof numeric === 'number' && Number.isFinite(numeric))
      return String(numeric);
    const date = extension['valueDate'] ?? extension['valueDateTime'];
    if (answerType === 'date' && typeof date === 'string' && isValidDate(date.slice(0, 10)))
      return date.slice(0, 10);
    this.problem(
      'invalid_bound',
      linkId,
      `${url.endsWith('minValue') ? 'minValue' : 'maxValue'} does not fit the item type`,
    );
    return undefined;
  }

  private children(node: Record<string, unknown>): Array<Record<string, unknown>> {
    const items = node['item'];
    if (items === undefined) return [];
    if (!Array.isArray(items)) {
      this.problem('invalid_questionnaire', undefined, 'item must be an array');
      return [];
    }
    const records = items.filter(isRecord);
    if (records.length !== items.length)
      this.problem('invalid_questionnaire', undefined, 'every item must be an object');
    return records;
  }

  private linkIdOf(node: Record<string, unknown>): string | undefined {
    const linkId = node['linkId'];
    if (typeof linkId === 'string' && linkId !== '') return linkId;
    this.problem('invalid_questionnaire', undefined, 'an item has no linkId');
    return undefined;
  }

  /** FHIR booleans; the strings "true"/"false" occur in real forms and are read as booleans. */
  private flag(value: unknown, linkId: string, name: string): boolean {
    if (value === undefined) return false;
    const flag = toBoolean(value);
    if (flag === undefined) {
      this.problem('invalid_item', linkId, `${name} must be a boolean`);
      return false;
    }
    return flag;
  }

  private problem(
    code: TemplateProblem['code'],
    linkId: string | undefined,
    message: string,
    reference?: string,
  ): void {
    this.problems.push({
      code,
      ...(linkId === undefined ? {} : { linkId }),
      ...(reference === undefined ? {} : { reference }),
      message,
    });
  }
}

/**
 * Converts a FHIR value[x] / answer[x] (named by its type suffix) to an answer the target item accepts, or
 * explains why it cannot. Lenient where real forms are sloppy: "true" as a boolean, numbers as strings, a
 * primitive compared with a choice item (it names the option code).
 */
function convertValue(
  source: string,
  value: unknown,
  target: Pick<PendingItem, 'answerType' | 'acceptsString' | 'options'>,
): Answer | string {
  switch (target.answerType) {
    case 'boolean': {
      const flag = source === 'Boolean' ? toBoolean(value) : undefined;
      return flag === undefined ? `a boolean item needs a boolean, got ${source}` : { valueBoolean: flag };
    }
    case 'decimal': {
      const raw = source === 'Quantity' && isRecord(value) ? value['value'] : value;
      const number =
        source === 'Decimal' || source === 'Integer' || source === 'Quantity' ? toNumber(raw) : undefined;
      return number === undefined ? `a numeric item needs a number, got ${source}` : { valueDecimal: number };
    }
    case 'date': {
      const date =
        (source === 'Date' || source === 'DateTime') && typeof value === 'string' ? value.slice(0, 10) : '';
      return isValidDate(date)
        ? { valueDate: date }
        : `a date item needs a full YYYY-MM-DD date, got ${source}`;
    }
    case 'string':
      return (source === 'String' || source === 'Time') && typeof value === 'string'
        ? { valueString: value }
        : `a string item needs a string, got ${source}`;
    case 'coding': {
      if (source === 'Coding') {
        const coding = toCoding(value);
        return coding ? { valueCoding: coding } : 'a coding needs a code';
      }
      const primitive = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
      if (primitive === undefined || primitive === '' || source === 'Reference' || source === 'Quantity') {
        return `a choice item cannot be compared with ${source}`;
      }
      // On an open-choice item a string names an option when it is one, and is free text otherwise.
      const isOption = target.options?.some((option) => option.code === primitive) ?? false;
      if (target.acceptsString && source === 'String' && !isOption) return { valueString: primitive };
      return { valueCoding: { code: primitive } };
    }
  }
}

function optionOf(entry: Record<string, unknown>): AnswerOption | undefined {
  const coding = toCoding(entry['valueCoding']);
  if (coding) return { code: coding.code, display: coding.display ?? coding.code };
  for (const field of ['valueString', 'valueInteger', 'valueDate', 'valueTime']) {
    const value = entry[field];
    if ((typeof value === 'string' && value !== '') || typeof value === 'number') {
      return { code: String(value), display: String(value) };
    }
  }
  return undefined;
}

function toCoding(value: unknown): Coding | undefined {
  if (!isRecord(value) || typeof value['code'] !== 'string' || value['code'] === '') return undefined;
  // FHIR's Coding.version and userSelected do not take part in matching; keep code, system, display.
  return {
    code: value['code'],
    ...(typeof value['system'] === 'string' ? { system: value['system'] } : {}),
    ...(typeof value['display'] === 'string' ? { display: value['display'] } : {}),
  };
}

function collectContains(contains: unknown[], options: AnswerOption[]): void {
  for (const entry of contains) {
    if (!isRecord(entry)) continue;
    if (typeof entry['code'] === 'string' && entry['code'] !== '') {
      options.push({ code: entry['code'], display: stringOr(entry['display'], entry['code']) });
    }
    if (Array.isArray(entry['contains'])) collectContains(entry['contains'], options);
  }
}

function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^[+-]?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return undefined;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function templateIdOf(json: Record<string, unknown>): string {
  for (const key of ['id', 'name']) {
    const value = json[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  const title = typeof json['title'] === 'string' ? json['title'] : '';
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'questionnaire' : slug;
}

/** "default", unless a top-level group already uses that linkId. */
function uniqueGroupId(questionnaire: Record<string, unknown>): string {
  const items = Array.isArray(questionnaire['item']) ? questionnaire['item'] : [];
  const taken = new Set(items.filter(isRecord).map((item) => item['linkId']));
  let id = 'default';
  for (let n = 2; taken.has(id); n += 1) id = `default-${n}`;
  return id;
}
