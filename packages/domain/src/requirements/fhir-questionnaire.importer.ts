import { isValidDate, TIME_PATTERN } from './answer-validator';
import { isRecord } from './condition-evaluator';
import type {
  Answer,
  AnswerOption,
  AnswerType,
  Coding,
  ComparisonOperator,
  Condition,
  QuestionnaireGroupRule,
  QuestionnaireDisplayTemplate,
  QuestionnaireGroupTemplate,
  QuestionnaireItemTemplate,
  QuestionnaireTemplate,
  ValueType,
} from './questionnaire.types';
import { templateInvalid, type TemplateProblem } from './template-problem';
import { validateTemplate } from './template-validator';
import { DomainError } from '../shared/domain-error';

export interface FhirImportOptions {
  /** Overrides the template id (default: the Questionnaire's id, else name, else its title slugged). */
  id?: string;
  /** Overrides the template version (default: the Questionnaire's version, else "1"). */
  version?: string;
  /** Title of the group collecting top-level questions that are not in a group. */
  defaultGroupTitle?: string;
}

/** Codes of the approximations an import made; each is printed to the operator as a warning. */
export type FhirImportWarningCode =
  | 'expression_dropped'
  | 'extension_ignored'
  | 'enable_behavior_defaulted'
  | 'repeating_group_flattened'
  | 'reference_item_skipped'
  | 'hidden_item_asked'
  | 'display_item_required'
  | 'sub_questionnaire_dropped';

export interface FhirImportWarning {
  code: FhirImportWarningCode;
  /** The items concerned, as linkId paths (" > " between levels); empty for the whole form. */
  paths: string[];
  message: string;
}

export interface FhirImportResult {
  template: QuestionnaireTemplate;
  warnings: FhirImportWarning[];
}

const SD = 'http://hl7.org/fhir/StructureDefinition/';
const EXTENSION_REGEX = `${SD}regex`;
const EXTENSION_MIN_VALUE = `${SD}minValue`;
const EXTENSION_MAX_VALUE = `${SD}maxValue`;
const EXTENSION_MIN_LENGTH = `${SD}minLength`;
const EXTENSION_UNIT = `${SD}questionnaire-unit`;
const EXTENSION_UNIT_OPTION = `${SD}questionnaire-unitOption`;
const EXTENSION_HIDDEN = `${SD}questionnaire-hidden`;
const EXTENSION_ANSWER_REPEATS = `${SD}questionnaire-answerRepeats`;
const EXTENSION_SUB_QUESTIONNAIRE =
  'http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-subQuestionnaire';
/** Extensions the import reads; every other one is reported as ignored (or, for expressions, dropped). */
const HANDLED_EXTENSIONS: ReadonlySet<string> = new Set([
  EXTENSION_REGEX,
  EXTENSION_MIN_VALUE,
  EXTENSION_MAX_VALUE,
  EXTENSION_MIN_LENGTH,
  EXTENSION_UNIT,
  EXTENSION_UNIT_OPTION,
  EXTENSION_HIDDEN,
  EXTENSION_ANSWER_REPEATS,
  EXTENSION_SUB_QUESTIONNAIRE,
]);
// FHIRPath/CQL logic the engine cannot run: the extension names end with one of these (SDC and cqf).
const EXPRESSION_EXTENSION = /(Expression|-expression|-library|-variable|itemPopulationContext)$/;
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
const VALUE_TYPE_MAP: ReadonlyMap<string, ValueType> = new Map<string, ValueType>([
  ['integer', 'integer'],
  ['quantity', 'quantity'],
  ['time', 'time'],
  ['dateTime', 'dateTime'],
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
  path: string;
  /** Inside a repeating group nested in another: its answers in one outer instance are flattened. */
  inNestedRepeatingGroup: boolean;
  answerType: AnswerType;
  acceptsString: boolean;
  options: AnswerOption[] | undefined;
  gates: Gate[];
}

interface PendingGroup {
  id: string;
  title: string;
  items: PendingItem[];
  displays: PendingDisplay[];
}

/** A FHIR display item kept as text after the group's first `position` questions. */
interface PendingDisplay {
  linkId: string;
  text: string;
  position: number;
  gates: Gate[];
}

/** A FHIR group (top-level or nested) that is required or repeats, with the questions found inside it. */
interface PendingRule {
  node: Record<string, unknown>;
  linkId: string;
  gates: Gate[];
  required: boolean;
  repeats: boolean;
  linkIds: string[];
}

/** Where the walk is: the linkId path, the enableWhen gates in force and the open group rules. */
interface Context {
  path: string;
  gates: Gate[];
  rules: PendingRule[];
  /** Inside a repeating group (whose instances answers carry). */
  repeating: boolean;
  /** Inside a repeating group nested in another one (flattened into the outer group's instances). */
  nestedRepeating: boolean;
}

/**
 * Converts a FHIR R4 Questionnaire into a template. Pure: contained ValueSets are resolved, external ones are
 * left unconstrained. Top-level groups become groups; nested groups and questions' children are flattened into
 * them with their ancestors' enableWhen conjoined (a disabled item disables its descendants); top-level
 * questions go into a default group. enableWhen C becomes `notAllowedWhen: {not: C}`, and for required items
 * `requiredWhen: C` with `required: false` (FHIR requires an item only while enabled). Required and repeating
 * groups become group rules (a repeating group's answers carry their instance), display items are kept as text
 * (decision 0036); `enableWhenExpression` (FHIRPath) is not imported. Throws `template_invalid` listing every
 * problem, and runs `validateTemplate`, so unknown linkIds and cycles are rejected here.
 */
export function importFhirQuestionnaire(
  json: unknown,
  options: FhirImportOptions = {},
): QuestionnaireTemplate {
  return importFhirQuestionnaireWithWarnings(json, options).template;
}

/**
 * `importFhirQuestionnaire`, also returning every approximation it made (decision 0018): dropped FHIRPath/CQL
 * expressions, ignored extensions, a defaulted enableBehavior, skipped reference items, dropped display items
 * and sub-questionnaire placeholders. Problems carry the item's linkId path.
 */
export function importFhirQuestionnaireWithWarnings(
  json: unknown,
  options: FhirImportOptions = {},
): FhirImportResult {
  if (!isRecord(json) || json['resourceType'] !== 'Questionnaire') {
    throw templateInvalid(options.id, [
      { code: 'invalid_questionnaire', message: 'expected a FHIR R4 Questionnaire resource' },
    ]);
  }
  const release = otherReleaseOf(json);
  if (release !== undefined) {
    throw templateInvalid(options.id, [
      {
        code: 'unsupported_fhir_version',
        message: `this is a FHIR ${release.release} Questionnaire (${release.evidence}); only R4 is imported, convert it to R4 first`,
      },
    ]);
  }
  const id = options.id ?? templateIdOf(json);
  const importer = new QuestionnaireImporter(json);
  const { groups, groupRules } = importer.run(options.defaultGroupTitle ?? 'General');
  if (importer.problems.length > 0) throw templateInvalid(id, importer.problems);

  const template: QuestionnaireTemplate = {
    id,
    version: options.version ?? (typeof json['version'] === 'string' ? json['version'] : '1'),
    title: stringOr(json['title'], stringOr(json['name'], id)),
    groups,
    ...(groupRules.length > 0 ? { groupRules } : {}),
  };
  try {
    validateTemplate(template);
  } catch (error) {
    throw importer.withPaths(id, error);
  }
  return { template, warnings: importer.warnings() };
}

/**
 * STU3 and R5 Questionnaires look much like R4 ones but mean different things; the elements only they have
 * tell them apart (R4 has none of these).
 */
function otherReleaseOf(json: Record<string, unknown>): { release: string; evidence: string } | undefined {
  for (const key of ['versionAlgorithmString', 'versionAlgorithmCoding', 'copyrightLabel']) {
    if (json[key] !== undefined) return { release: 'R5', evidence: `it has ${key}` };
  }
  const stack = Array.isArray(json['item']) ? [...json['item']] : [];
  while (stack.length > 0) {
    const node: unknown = stack.pop();
    if (!isRecord(node)) continue;
    const where = typeof node['linkId'] === 'string' ? ` on item "${node['linkId']}"` : '';
    if (node['answerConstraint'] !== undefined || node['disabledDisplay'] !== undefined)
      return { release: 'R5', evidence: `answerConstraint or disabledDisplay${where}` };
    if (node['type'] === 'coding' || node['type'] === 'question')
      return { release: 'R5', evidence: `item type "${String(node['type'])}"${where}` };
    if (node['option'] !== undefined || node['options'] !== undefined)
      return { release: 'STU3', evidence: `option/options instead of answerOption${where}` };
    if (Object.keys(node).some((key) => /^initial[A-Z]/.test(key)))
      return { release: 'STU3', evidence: `initial[x] instead of initial${where}` };
    const enableWhen = Array.isArray(node['enableWhen']) ? node['enableWhen'] : [];
    if (enableWhen.some((entry) => isRecord(entry) && entry['hasAnswer'] !== undefined))
      return { release: 'STU3', evidence: `enableWhen.hasAnswer${where}` };
    if (Array.isArray(node['item'])) stack.push(...node['item']);
  }
  return undefined;
}

class QuestionnaireImporter {
  readonly problems: TemplateProblem[] = [];
  private readonly questions = new Map<string, PendingItem>();
  private readonly otherLinkIds = new Set<string>();
  private readonly gateConditions = new Map<Gate, Condition | undefined>();
  private readonly paths = new Map<string, string>();
  private readonly rules: PendingRule[] = [];
  /** Warnings by code and message, collecting the paths they apply to, in the order first met. */
  private readonly warningsByKey = new Map<string, FhirImportWarning>();

  constructor(private readonly questionnaire: Record<string, unknown>) {}

  run(defaultGroupTitle: string): {
    groups: QuestionnaireGroupTemplate[];
    groupRules: QuestionnaireGroupRule[];
  } {
    this.noteExtensions(this.questionnaire, '');
    const pending = this.collect(defaultGroupTitle);
    if (this.questions.size === 0 && this.problems.length === 0) {
      this.problem('invalid_questionnaire', undefined, 'the form has no question to answer');
    }
    const groups = pending.map((group): QuestionnaireGroupTemplate => ({
      id: group.id,
      title: group.title,
      items: group.items.map((item) => this.buildItem(item)),
      ...(group.displays.length > 0
        ? { displays: group.displays.map((display) => this.buildDisplay(display)) }
        : {}),
    }));
    // A group whose questions were all skipped has nothing left to require.
    const rules = this.rules.filter((rule) => rule.linkIds.length > 0);
    return { groups, groupRules: rules.map((rule) => this.buildRule(rule)) };
  }

  warnings(): FhirImportWarning[] {
    return [...this.warningsByKey.values()];
  }

  /** A `template_invalid` from validation, its problems given the linkId paths of the form. */
  withPaths(id: string, error: unknown): unknown {
    if (!(error instanceof DomainError) || error.code !== 'template_invalid') return error;
    const problems = (error.details['problems'] as TemplateProblem[] | undefined) ?? [];
    return templateInvalid(
      id,
      problems.map((problem) => {
        const path = problem.linkId === undefined ? undefined : this.paths.get(problem.linkId);
        return path === undefined ? problem : { ...problem, path };
      }),
    );
  }

  private collect(defaultGroupTitle: string): PendingGroup[] {
    const groups: PendingGroup[] = [];
    let defaultGroup: PendingGroup | undefined;
    const top: Context = { path: '', gates: [], rules: [], repeating: false, nestedRepeating: false };
    // A display outside any group joins the group before it, or the first group when none precedes it.
    const leading: PendingDisplay[] = [];
    for (const node of this.children(this.questionnaire, '')) {
      const linkId = this.linkIdOf(node, '');
      if (linkId === undefined) continue;
      if (node['type'] === 'group') {
        const group: PendingGroup = {
          id: linkId,
          title: stringOr(node['text'], linkId),
          items: [],
          displays: [],
        };
        groups.push(group);
        this.enterGroup(node, linkId, group, top);
      } else if (node['type'] === 'display') {
        const last = groups[groups.length - 1];
        const display = this.display(node, linkId, top, last?.items.length ?? 0);
        if (display) (last ? last.displays : leading).push(display);
      } else {
        if (!defaultGroup) {
          // Placed where the first loose question appears, keeping the form's order.
          defaultGroup = {
            id: uniqueGroupId(this.questionnaire),
            title: defaultGroupTitle,
            items: [],
            displays: [],
          };
          groups.push(defaultGroup);
        }
        this.addQuestion(node, linkId, defaultGroup, top);
      }
    }
    groups[0]?.displays.unshift(...leading);
    return groups;
  }

  private walk(nodes: Array<Record<string, unknown>>, group: PendingGroup, context: Context): void {
    for (const node of nodes) {
      const linkId = this.linkIdOf(node, context.path);
      if (linkId === undefined) continue;
      if (node['type'] === 'group') this.enterGroup(node, linkId, group, context);
      else if (node['type'] === 'display') {
        const display = this.display(node, linkId, context, group.items.length);
        if (display) group.displays.push(display);
      } else this.addQuestion(node, linkId, group, context);
    }
  }

  /** A FHIR group: its questions join `group`; a required or repeating group is kept as a group rule. */
  private enterGroup(
    node: Record<string, unknown>,
    linkId: string,
    group: PendingGroup,
    parent: Context,
  ): void {
    const path = joinPath(parent.path, linkId);
    this.otherLinkIds.add(linkId);
    this.paths.set(linkId, path);
    this.noteExtensions(node, path);
    const gates = this.gatesOf(node, linkId, parent.gates);
    const required = this.flag(node['required'], linkId, 'required');
    const repeats = this.flag(node['repeats'], linkId, 'repeats');
    // Answers carry the instance of one repeating group; a repeating group inside another is flattened.
    const nested = repeats && parent.repeating;
    const rules = [...parent.rules];
    if (required || (repeats && !nested)) {
      const rule: PendingRule = { node, linkId, gates, required, repeats: repeats && !nested, linkIds: [] };
      this.rules.push(rule);
      rules.push(rule);
    }
    if (nested) {
      this.warn(
        'repeating_group_flattened',
        path,
        'repeating group inside a repeating group: its questions accept several answers in each instance of the outer group, not tied to an instance of their own',
      );
    }
    this.walk(this.children(node, path), group, {
      path,
      gates,
      rules,
      repeating: parent.repeating || repeats,
      nestedRepeating: parent.nestedRepeating || nested,
    });
  }

  /** A FHIR display item: kept as text at `position` among its group's questions (a placeholder is dropped). */
  private display(
    node: Record<string, unknown>,
    linkId: string,
    context: Context,
    position: number,
  ): PendingDisplay | undefined {
    const path = joinPath(context.path, linkId);
    this.otherLinkIds.add(linkId);
    this.paths.set(linkId, path);
    const extensions = extensionsOf(node);
    if (extensions.some((extension) => extension['url'] === EXTENSION_SUB_QUESTIONNAIRE)) {
      this.warn(
        'sub_questionnaire_dropped',
        path,
        'sub-questionnaire placeholder dropped: the referenced questionnaire is not imported, import its questions as a form of their own or into this one',
      );
      this.noteExtensions(node, path);
      return undefined;
    }
    if (toBoolean(node['required']) === true) {
      this.warn(
        'display_item_required',
        path,
        'required display item kept as text: display items take no answer, so nothing is required of it',
      );
    }
    this.noteExtensions(node, path);
    const gates = this.gatesOf(node, linkId, context.gates);
    return { linkId, text: stringOr(node['text'], ''), position, gates };
  }

  private buildDisplay(pending: PendingDisplay): QuestionnaireDisplayTemplate {
    const enabled = this.enabledCondition(pending.gates);
    return {
      linkId: pending.linkId,
      text: pending.text,
      position: pending.position,
      ...(enabled === undefined ? {} : { hiddenWhen: { not: enabled } }),
    };
  }

  private addQuestion(
    node: Record<string, unknown>,
    linkId: string,
    group: PendingGroup,
    context: Context,
  ): void {
    const path = joinPath(context.path, linkId);
    this.paths.set(linkId, path);
    const type = node['type'];
    if (type === 'reference') {
      // A reference to another resource cannot be answered through this API; the form stays importable.
      this.otherLinkIds.add(linkId);
      this.warn(
        'reference_item_skipped',
        path,
        toBoolean(node['required']) === true
          ? 'required reference item skipped: a reference cannot be answered here, collect it as a document'
          : 'reference item skipped: a reference cannot be answered here',
      );
      return;
    }
    this.noteExtensions(node, path);
    const gates = this.gatesOf(node, linkId, context.gates);
    let answerType = typeof type === 'string' ? TYPE_MAP.get(type) : undefined;
    if (answerType === undefined) {
      this.problem('unsupported_item_type', linkId, `item type "${String(type)}" is not supported`);
      answerType = 'string';
    }
    const options = this.optionsOf(node, linkId);
    if (options !== undefined) answerType = 'coding';
    if (extensionsOf(node).some((extension) => extension['url'] === EXTENSION_HIDDEN)) {
      this.warn(
        'hidden_item_asked',
        path,
        "hidden item (filled by the payer's logic) is asked like any other",
      );
    }
    const pending: PendingItem = {
      fhir: node,
      linkId,
      path,
      inNestedRepeatingGroup: context.nestedRepeating,
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
    for (const rule of context.rules) rule.linkIds.push(linkId);
    group.items.push(pending);
    // FHIR lets a question have child items; they are shown (and enabled) only with their parent.
    this.walk(this.children(node, path), group, { ...context, path, gates });
  }

  private buildRule(pending: PendingRule): QuestionnaireGroupRule {
    const rule: QuestionnaireGroupRule = {
      linkId: pending.linkId,
      text: stringOr(pending.node['text'], pending.linkId),
      linkIds: pending.linkIds,
    };
    const enabled = this.enabledCondition(pending.gates);
    if (pending.required) {
      if (enabled === undefined) rule.required = true;
      else rule.requiredWhen = enabled;
    }
    if (pending.repeats) rule.repeats = true;
    return rule;
  }

  private enabledCondition(gates: Gate[]): Condition | undefined {
    const conditions = gates
      .map((gate) => this.gateCondition(gate))
      .filter((condition): condition is Condition => condition !== undefined);
    return conditions.length === 0
      ? undefined
      : conditions.length === 1
        ? conditions[0]
        : { all: conditions };
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
    const extensions = extensionsOf(fhir);
    const answerRepeats = extensions.find((extension) => extension['url'] === EXTENSION_ANSWER_REPEATS);
    if (
      this.flag(fhir['repeats'], linkId, 'repeats') ||
      toBoolean(answerRepeats?.['valueBoolean']) === true ||
      pending.inNestedRepeatingGroup
    ) {
      item.repeats = true;
    }
    const valueType = typeof fhir['type'] === 'string' ? VALUE_TYPE_MAP.get(fhir['type']) : undefined;
    if (valueType !== undefined && pending.options === undefined) item.valueType = valueType;
    if (pending.options !== undefined) item.options = pending.options;
    if (pending.acceptsString) item.answerConstraint = 'optionsOrString';

    const regex = extensions.find((extension) => extension['url'] === EXTENSION_REGEX)?.['valueString'];
    if (typeof regex === 'string') item.pattern = regex;
    else if (fhir['type'] === 'time' && answerType === 'string') item.pattern = TIME_PATTERN;
    if (typeof fhir['maxLength'] === 'number') item.maxLength = fhir['maxLength'];
    const minLength = extensions.find((extension) => extension['url'] === EXTENSION_MIN_LENGTH)?.[
      'valueInteger'
    ];
    if (typeof minLength === 'number' && answerType === 'string') item.minLength = minLength;
    if (answerType === 'decimal' || answerType === 'date') {
      const min = this.boundOf(extensions, EXTENSION_MIN_VALUE, answerType, linkId);
      const max = this.boundOf(extensions, EXTENSION_MAX_VALUE, answerType, linkId);
      if (min !== undefined) item.min = min;
      if (max !== undefined) item.max = max;
    }
    if (item.valueType === 'quantity') {
      const units = extensions
        .filter(
          (extension) => extension['url'] === EXTENSION_UNIT_OPTION || extension['url'] === EXTENSION_UNIT,
        )
        .map((extension) => toCoding(extension['valueCoding']))
        .filter((coding): coding is Coding => coding !== undefined);
      if (units.length > 0) item.units = units;
    }

    const defaultValue = this.defaultOf(pending);
    if (defaultValue !== undefined) item.defaultValue = defaultValue;

    const enabled = this.enabledCondition(pending.gates);
    if (enabled !== undefined) {
      item.notAllowedWhen = { not: enabled };
      if (required) {
        item.required = false;
        item.requiredWhen = enabled;
      }
    }
    return item;
  }

  /** Expressions are dropped and other unread extensions ignored, each with a warning. */
  private noteExtensions(node: Record<string, unknown>, path: string): void {
    for (const extension of extensionsOf(node)) {
      const url = typeof extension['url'] === 'string' ? extension['url'] : '(no url)';
      if (HANDLED_EXTENSIONS.has(url)) continue;
      if (EXPRESSION_EXTENSION.test(url)) {
        this.warn('expression_dropped', path, `expression dropped (${url}): FHIRPath and CQL are not run`);
      } else {
        this.warn('extension_ignored', path, `extension ignored: ${url}`);
      }
    }
    for (const key of ['enableWhenExpression', 'initialExpression', 'calculatedExpression']) {
      if (node[key] !== undefined)
        this.warn('expression_dropped', path, `${key} dropped: FHIRPath is not run`);
    }
  }

  private warn(code: FhirImportWarningCode, path: string, message: string): void {
    const key = `${code}\u0000${message}`;
    const existing = this.warningsByKey.get(key);
    if (existing) {
      if (path !== '' && !existing.paths.includes(path)) existing.paths.push(path);
      return;
    }
    this.warningsByKey.set(key, { code, paths: path === '' ? [] : [path], message });
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
      if (gate.behavior === undefined) {
        this.warn(
          'enable_behavior_defaulted',
          this.paths.get(gate.owner) ?? gate.owner,
          'several enableWhen without enableBehavior: read as "any" (enabled when one holds)',
        );
      }
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
        `enableWhen reads "${question}", a group, display or skipped reference item, which takes no answer here`,
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

  private children(node: Record<string, unknown>, path: string): Array<Record<string, unknown>> {
    const items = node['item'];
    const where = path === '' ? '' : ` under ${path}`;
    if (items === undefined) return [];
    if (!Array.isArray(items)) {
      this.problem('invalid_questionnaire', undefined, `item must be an array${where}`);
      return [];
    }
    const records = items.filter(isRecord);
    if (records.length !== items.length)
      this.problem('invalid_questionnaire', undefined, `every item must be an object${where}`);
    return records;
  }

  private linkIdOf(node: Record<string, unknown>, path: string): string | undefined {
    const linkId = node['linkId'];
    if (typeof linkId === 'string' && linkId !== '') return linkId;
    const text = typeof node['text'] === 'string' ? ` ("${node['text'].slice(0, 40)}")` : '';
    this.problem(
      'invalid_questionnaire',
      undefined,
      `an item${text} has no linkId${path === '' ? ' at the top of the form' : ` under ${path}`}`,
    );
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
    const path = linkId === undefined ? undefined : this.paths.get(linkId);
    this.problems.push({
      code,
      ...(linkId === undefined ? {} : { linkId }),
      ...(path === undefined ? {} : { path }),
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
        const coding =
          toCoding(value) ??
          (isRecord(value) && typeof value['display'] === 'string' && value['display'] !== ''
            ? { code: value['display'] }
            : undefined);
        return coding ? { valueCoding: coding } : 'a coding needs a code or a display';
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
  // FHIR allows a Coding with only a display; the display then is the option's code (decision 0018), so
  // answers and enableWhen name it the same way.
  const valueCoding = entry['valueCoding'];
  if (isRecord(valueCoding) && typeof valueCoding['display'] === 'string' && valueCoding['display'] !== '') {
    return { code: valueCoding['display'], display: valueCoding['display'] };
  }
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

function extensionsOf(node: Record<string, unknown>): Array<Record<string, unknown>> {
  return Array.isArray(node['extension']) ? node['extension'].filter(isRecord) : [];
}

function joinPath(parent: string, linkId: string): string {
  return parent === '' ? `"${linkId}"` : `${parent} > "${linkId}"`;
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
