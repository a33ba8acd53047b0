/**
 * Questionnaire templates, answers and requirement sets: the contract between the requirements engine,
 * the Authorization aggregate, the FHIR importer, persistence and the API presenters. Plain JSON only, so
 * templates can be stored, shipped in a catalog file and shown to clients unchanged.
 */

export const ANSWER_TYPES = ['string', 'date', 'boolean', 'decimal', 'coding'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

/** How a `coding` item treats answers outside its options (FHIR `answerConstraint`). */
export const ANSWER_CONSTRAINTS = ['optionsOnly', 'optionsOrString'] as const;
export type AnswerConstraint = (typeof ANSWER_CONSTRAINTS)[number];

export interface Coding {
  code: string;
  system?: string;
  display?: string;
}

/** A measured amount (FHIR Quantity): the value and, optionally, its unit. */
export interface Quantity {
  value: number;
  unit?: string;
  system?: string;
  code?: string;
}

/**
 * One answer value; exactly one of the value fields is set. `valueInteger` and `valueQuantity` answer
 * `decimal` items, `valueTime` `string` items and `valueDateTime` `date` items, where the item's `valueType`
 * says so (decision 0018).
 */
export interface Answer {
  valueString?: string;
  valueBoolean?: boolean;
  /** ISO 8601 calendar date, `YYYY-MM-DD`. */
  valueDate?: string;
  valueDecimal?: number;
  valueCoding?: Coding;
  valueInteger?: number;
  valueQuantity?: Quantity;
  /** `hh:mm[:ss]`. */
  valueTime?: string;
  /** ISO 8601 date-time `YYYY-MM-DDThh:mm[:ss][Z|±hh:mm]`; conditions and bounds read its date. */
  valueDateTime?: string;
}

/**
 * The FHIR item type an item keeps beyond its answer type: `integer` (whole numbers only; also `valueInteger`)
 * and `quantity` (`valueQuantity`, unit among `units` when given) refine `decimal`; `time` (`valueTime`)
 * refines `string`; `dateTime` (`valueDateTime`) refines `date`.
 */
export const VALUE_TYPES = ['integer', 'quantity', 'time', 'dateTime'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

export interface QuestionnaireResponseItem {
  linkId: string;
  /**
   * For a question inside a repeating group: which instance of the group the answers belong to (0-based,
   * below `MAX_GROUP_INSTANCES`); absent means the first instance. Each (linkId, instance) is its own entry.
   */
  instance?: number;
  answer: Answer[];
}

export interface QuestionnaireResponse {
  item: QuestionnaireResponseItem[];
}

export const COMPARISON_OPERATORS = ['=', '!=', '>', '<', '>=', '<='] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

/**
 * A condition over the answers. Expresses FHIR R4 `enableWhen` fully: `exists` and the six comparison
 * operators on every answer type, combined with `all` / `any` (nestable) and negated with `not`.
 * FHIR semantics: `=` holds when at least one answer equals the value; `!=` holds when no answer equals it
 * (so an unanswered item satisfies it); `exists` compares presence with the boolean. An item that is itself
 * not allowed (its `notAllowedWhen` holds) reads as unanswered.
 */
export type Condition =
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition }
  | { linkId: string; operator: 'exists'; exists: boolean }
  | { linkId: string; operator: ComparisonOperator; answer: Answer };

/** Conditionally available option codes: the first case whose `when` holds wins; none → all `options`. */
export interface ValuesWhen {
  cases: Array<{ when: Condition; values: string[] }>;
}

/** Conditionally displayed text: the first case whose `when` holds wins; none → `text`. */
export interface TextWhen {
  cases: Array<{ when: Condition; text: string }>;
}

export interface AnswerOption {
  code: string;
  display: string;
}

export interface QuestionnaireItemTemplate {
  linkId: string;
  text: string;
  required: boolean;
  answerType: AnswerType;
  /** Several answers allowed (FHIR `repeats`); otherwise more than one answer is an issue. */
  repeats?: boolean;
  valueType?: ValueType;
  /** For `quantity` items: the units a quantity answer may carry (FHIR `questionnaire-unitOption`). */
  units?: Coding[];
  /** Fewest characters a string answer may have (FHIR `minLength`). */
  minLength?: number;
  options?: AnswerOption[];
  /**
   * For `coding` items: `optionsOrString` (FHIR `open-choice`) also accepts a free-text `valueString`;
   * codings must still be among the options. Absent means `optionsOnly`.
   */
  answerConstraint?: AnswerConstraint;
  pattern?: string;
  maxLength?: number;
  /** Bounds as strings: a decimal for `decimal` answers, a `YYYY-MM-DD` date for `date` answers. */
  min?: string;
  max?: string;
  errorMessage?: string;
  mode?: string;
  defaultValue?: Answer;
  requiredWhen?: Condition;
  notAllowedWhen?: Condition;
  valuesWhen?: ValuesWhen;
  textWhen?: TextWhen;
}

/**
 * Text shown among a group's questions without taking an answer (a FHIR `display` item): after the group's
 * first `position` items. `hiddenWhen` (its enableWhen, negated) hides it like `notAllowedWhen` an item.
 */
export interface QuestionnaireDisplayTemplate {
  linkId: string;
  text: string;
  position: number;
  hiddenWhen?: Condition;
}

export interface QuestionnaireGroupTemplate {
  id: string;
  title: string;
  items: QuestionnaireItemTemplate[];
  /** Display texts among the items, in order. */
  displays?: QuestionnaireDisplayTemplate[];
}

/**
 * A FHIR group kept as a rule over the items it contains, after they were placed in the template's groups:
 * `required` (or `requiredWhen`, its enableWhen) asks for at least one answer among `linkIds` while the group
 * is enabled; `repeats` makes the group repeat: answers to its items carry their group `instance`, and each
 * instance is validated on its own (an item belongs to at most one repeating group).
 */
export interface QuestionnaireGroupRule {
  linkId: string;
  text: string;
  linkIds: string[];
  required?: boolean;
  requiredWhen?: Condition;
  repeats?: boolean;
}

export interface QuestionnaireTemplate {
  id: string;
  version: string;
  title: string;
  groups: QuestionnaireGroupTemplate[];
  /** FHIR groups with a rule the engine enforces (required groups) or that repeat. */
  groupRules?: QuestionnaireGroupRule[];
}

/** A document type a route requires, possibly only under a condition on the answers. */
export interface DocumentRequirement {
  type: string;
  label: string;
  message: string;
  requiredWhen?: Condition;
}

export const ISSUE_SEVERITIES = ['error', 'warning', 'info'] as const;
export type IssueSeverity = (typeof ISSUE_SEVERITIES)[number];

export interface RequirementIssue {
  code: string;
  message: string;
  field: string;
  severity: IssueSeverity;
  /** The repeating-group instance of the answers at fault, for a question inside a repeating group. */
  instance?: number;
}

/** An outstanding question; `instance` names the repeating-group instance it is missing from. */
export interface OutstandingQuestion {
  linkId: string;
  message: string;
  instance?: number;
}

export interface RequirementSet {
  questions: OutstandingQuestion[];
  documents: Array<{ type: string; message: string }>;
  issues: RequirementIssue[];
}

/**
 * The questionnaire as a client sees it: `textWhen` resolved into `text`, defaults filled in, and for a question
 * inside a repeating group that group (its answers carry the group `instance`).
 */
export type PresentedQuestionnaireItem = QuestionnaireItemTemplate & {
  repeatingGroup?: { linkId: string; text: string };
};
export interface PresentedQuestionnaireGroup {
  id: string;
  title: string;
  items: PresentedQuestionnaireItem[];
  displays?: QuestionnaireDisplayTemplate[];
}
