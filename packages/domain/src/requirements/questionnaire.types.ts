/**
 * Questionnaire templates, answers and requirement sets: the contract between the requirements engine,
 * the Authorization aggregate, the FHIR importer, persistence and the API presenters. Plain JSON only, so
 * templates can be stored, shipped in a catalog file and shown to clients unchanged.
 */

export type AnswerType = 'string' | 'date' | 'boolean' | 'decimal' | 'coding';

export interface Coding {
  code: string;
  system?: string;
  display?: string;
}

/** One answer value; exactly one of the value fields is set. */
export interface Answer {
  valueString?: string;
  valueBoolean?: boolean;
  /** ISO 8601 calendar date, `YYYY-MM-DD`. */
  valueDate?: string;
  valueDecimal?: number;
  valueCoding?: Coding;
}

export interface QuestionnaireResponseItem {
  linkId: string;
  answer: Answer[];
}

export interface QuestionnaireResponse {
  item: QuestionnaireResponseItem[];
}

export type ComparisonOperator = '=' | '!=' | '>' | '<' | '>=' | '<=';

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
  options?: AnswerOption[];
  /**
   * For `coding` items: `optionsOrString` (FHIR `open-choice`) also accepts a free-text `valueString`;
   * codings must still be among the options. Absent means `optionsOnly`.
   */
  answerConstraint?: 'optionsOnly' | 'optionsOrString';
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

export interface QuestionnaireGroupTemplate {
  id: string;
  title: string;
  items: QuestionnaireItemTemplate[];
}

export interface QuestionnaireTemplate {
  id: string;
  version: string;
  title: string;
  groups: QuestionnaireGroupTemplate[];
}

/** A document type a route requires, possibly only under a condition on the answers. */
export interface DocumentRequirement {
  type: string;
  label: string;
  message: string;
  requiredWhen?: Condition;
}

export type IssueSeverity = 'error' | 'warning' | 'info';

export interface RequirementIssue {
  code: string;
  message: string;
  field: string;
  severity: IssueSeverity;
}

export interface RequirementSet {
  questions: Array<{ linkId: string; message: string }>;
  documents: Array<{ type: string; message: string }>;
  issues: RequirementIssue[];
}

/** The questionnaire as a client sees it: `textWhen` resolved into `text`, defaults filled in. */
export type PresentedQuestionnaireItem = QuestionnaireItemTemplate;
export interface PresentedQuestionnaireGroup {
  id: string;
  title: string;
  items: PresentedQuestionnaireItem[];
}
