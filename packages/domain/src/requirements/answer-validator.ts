import type { Answer, AnswerType, RequirementIssue, ValueType } from './questionnaire.types';

/** Stable codes of the issues the requirements engine reports. Clients and tests key on them. */
export const REQUIREMENT_ISSUE_CODES = [
  'answer_type_mismatch',
  'invalid_date',
  'pattern_mismatch',
  'max_length_exceeded',
  'below_min',
  'above_max',
  'option_not_allowed',
  'too_many_answers',
  'answer_not_allowed',
  'unknown_link_id',
  'min_length_not_met',
  'unit_not_allowed',
  'instance_not_allowed',
] as const;

export type RequirementIssueCode = (typeof REQUIREMENT_ISSUE_CODES)[number];

/** The answer value kinds; they coincide with the answer types. */
export type AnswerKind = AnswerType;

/** FHIR `time`: `hh:mm[:ss[.fff]]`. */
export const TIME_PATTERN = '([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?';
const TIME_SHAPE = new RegExp(`^(?:${TIME_PATTERN})$`);
const DATE_TIME_SHAPE = new RegExp(`^(\\d{4}-\\d{2}-\\d{2})T(?:${TIME_PATTERN})(Z|[+-]\\d{2}:\\d{2})?$`);

/**
 * The kind of the single value field an answer carries, or undefined when it carries none, several, or one of
 * the wrong JavaScript type. Defensive on purpose: answers arrive from clients and stored JSON. The refined
 * fields read as their answer type's kind: `valueInteger` and `valueQuantity` as decimal, `valueTime` as
 * string, `valueDateTime` as date.
 */
export function answerKind(answer: unknown): AnswerKind | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const {
    valueString,
    valueBoolean,
    valueDate,
    valueDecimal,
    valueCoding,
    valueInteger,
    valueQuantity,
    valueTime,
    valueDateTime,
  } = answer as Record<string, unknown>;
  let kind: AnswerKind | undefined;
  let count = 0;
  if (valueInteger !== undefined) {
    count += 1;
    kind = typeof valueInteger === 'number' && Number.isSafeInteger(valueInteger) ? 'decimal' : undefined;
  }
  if (valueQuantity !== undefined) {
    count += 1;
    const value =
      typeof valueQuantity === 'object' && valueQuantity !== null
        ? (valueQuantity as Record<string, unknown>)['value']
        : undefined;
    kind = typeof value === 'number' && Number.isFinite(value) ? 'decimal' : undefined;
  }
  if (valueTime !== undefined) {
    count += 1;
    kind = typeof valueTime === 'string' ? 'string' : undefined;
  }
  if (valueDateTime !== undefined) {
    count += 1;
    kind = typeof valueDateTime === 'string' ? 'date' : undefined;
  }
  if (valueString !== undefined) {
    count += 1;
    kind = typeof valueString === 'string' ? 'string' : undefined;
  }
  if (valueBoolean !== undefined) {
    count += 1;
    kind = typeof valueBoolean === 'boolean' ? 'boolean' : undefined;
  }
  if (valueDate !== undefined) {
    count += 1;
    kind = typeof valueDate === 'string' ? 'date' : undefined;
  }
  if (valueDecimal !== undefined) {
    count += 1;
    kind = typeof valueDecimal === 'number' && Number.isFinite(valueDecimal) ? 'decimal' : undefined;
  }
  if (valueCoding !== undefined) {
    count += 1;
    kind = isCoding(valueCoding) ? 'coding' : undefined;
  }
  return count === 1 ? kind : undefined;
}

/** The number of a decimal-kind answer (valueDecimal, valueInteger or valueQuantity.value). */
export function numberOf(answer: Answer): number | undefined {
  const value = answer.valueDecimal ?? answer.valueInteger ?? answer.valueQuantity?.value;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The text of a string-kind answer (valueString or valueTime). */
export function stringOf(answer: Answer): string | undefined {
  const value = answer.valueString ?? answer.valueTime;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The `YYYY-MM-DD` date of a date-kind answer: valueDate, or the date of a well-formed valueDateTime (else
 * undefined, which reads as an invalid date).
 */
export function dateOf(answer: Answer): string | undefined {
  if (typeof answer.valueDate === 'string') return answer.valueDate;
  if (typeof answer.valueDateTime !== 'string') return undefined;
  return DATE_TIME_SHAPE.exec(answer.valueDateTime)?.[1];
}

/** Whether an answer's value field fits an item's FHIR type: refined fields need the matching valueType. */
export function fitsValueType(answer: Answer, valueType: ValueType | undefined): boolean {
  if (answer.valueQuantity !== undefined) return valueType === 'quantity';
  if (answer.valueTime !== undefined) return valueType === 'time';
  if (answer.valueDateTime !== undefined) return valueType === 'dateTime';
  return true;
}

function isCoding(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { code, system } = value as Record<string, unknown>;
  return typeof code === 'string' && code !== '' && (system === undefined || typeof system === 'string');
}

const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date in `YYYY-MM-DD` form (so 2023-02-29 is rejected). Such strings order lexicographically. */
export function isValidDate(value: string): boolean {
  const match = DATE_SHAPE.exec(value);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= daysInMonth;
}

/** What the validator needs of an item, precomputed by the template compiler. */
export interface AnswerConstraints {
  linkId: string;
  answerType: AnswerType;
  valueType: ValueType | undefined;
  /** Units a quantity answer may name (unit or code); undefined when any unit goes. */
  units: ReadonlySet<string> | undefined;
  minLength: number | undefined;
  acceptsString: boolean;
  pattern: RegExp | undefined;
  maxLength: number | undefined;
  min: number | string | undefined;
  max: number | string | undefined;
  errorMessage: string | undefined;
}

const TYPE_LABELS: Record<AnswerType, string> = {
  string: 'a string (valueString)',
  date: 'a date (valueDate)',
  boolean: 'a boolean (valueBoolean)',
  decimal: 'a number (valueDecimal)',
  coding: 'a coding (valueCoding)',
};
const VALUE_TYPE_LABELS: Record<ValueType, string> = {
  integer: 'a whole number (valueInteger or valueDecimal)',
  quantity: 'a quantity (valueQuantity or valueDecimal)',
  time: 'a time (valueTime or valueString, hh:mm[:ss])',
  dateTime: 'a date-time (valueDateTime or valueDate)',
};

/** Custom messages describe the value, so they replace only the value-validation messages. */
const STRUCTURAL: ReadonlySet<RequirementIssueCode> = new Set<RequirementIssueCode>(['too_many_answers']);
const CODE_BIT = new Map<RequirementIssueCode, number>(
  REQUIREMENT_ISSUE_CODES.map((code, index) => [code, 1 << index]),
);

/**
 * Appends the issues of one allowed item's answers, at most one per code, in the order first met.
 * Messages never include answer values: answers are PHI. Written without per-call closures or sets: it runs
 * for every answered item on every evaluation.
 */
export function validateAnswers(
  item: AnswerConstraints,
  answers: readonly Answer[],
  repeats: boolean,
  allowedCodes: ReadonlySet<string> | undefined,
  issues: RequirementIssue[],
): void {
  let seen = 0;
  if (!repeats && answers.length > 1) {
    seen = report(item, issues, seen, 'too_many_answers', 'This question accepts only one answer.');
  }
  for (const answer of answers) {
    const kind = answerKind(answer);
    if (kind === 'string' && item.acceptsString && answer.valueString !== undefined) {
      seen = checkString(item, answer.valueString as string, issues, seen);
      continue;
    }
    if (kind !== item.answerType || !fitsValueType(answer, item.valueType)) {
      const expected = item.acceptsString
        ? `${TYPE_LABELS.coding} or ${TYPE_LABELS.string}`
        : item.valueType !== undefined
          ? VALUE_TYPE_LABELS[item.valueType]
          : TYPE_LABELS[item.answerType];
      seen = report(item, issues, seen, 'answer_type_mismatch', `The answer must be ${expected}.`);
      continue;
    }
    switch (kind) {
      case 'string':
        if (answer.valueTime !== undefined && !TIME_SHAPE.test(answer.valueTime)) {
          seen = report(item, issues, seen, 'pattern_mismatch', 'The answer must be a time (hh:mm[:ss]).');
          break;
        }
        seen = checkString(item, stringOf(answer) as string, issues, seen);
        break;
      case 'date': {
        const value = dateOf(answer);
        seen =
          value !== undefined && isValidDate(value)
            ? checkBounds(item, value, issues, seen)
            : report(
                item,
                issues,
                seen,
                'invalid_date',
                answer.valueDateTime === undefined
                  ? 'The answer must be a valid calendar date (YYYY-MM-DD).'
                  : 'The answer must be a valid date-time (YYYY-MM-DDThh:mm[:ss][Z|±hh:mm]).',
              );
        break;
      }
      case 'decimal': {
        const value = numberOf(answer) as number;
        if (item.valueType === 'integer' && !Number.isInteger(value)) {
          seen = report(item, issues, seen, 'answer_type_mismatch', 'The answer must be a whole number.');
          break;
        }
        if (item.units !== undefined && answer.valueQuantity !== undefined) {
          const { unit, code } = answer.valueQuantity;
          const named = [unit, code].filter((part): part is string => typeof part === 'string');
          if (named.length > 0 && !named.some((part) => item.units?.has(part))) {
            seen = report(
              item,
              issues,
              seen,
              'unit_not_allowed',
              'The unit is not one of the allowed units.',
            );
          }
        }
        seen = checkBounds(item, value, issues, seen);
        break;
      }
      case 'coding':
        if (allowedCodes !== undefined && !allowedCodes.has(answer.valueCoding?.code ?? '')) {
          seen = report(
            item,
            issues,
            seen,
            'option_not_allowed',
            'The answer is not one of the allowed options.',
          );
        }
        break;
      case 'boolean':
        break;
    }
  }
}

/** Pushes the issue unless its code was already reported for this item; returns the updated seen-mask. */
function report(
  item: AnswerConstraints,
  issues: RequirementIssue[],
  seen: number,
  code: RequirementIssueCode,
  message: string,
): number {
  const bit = CODE_BIT.get(code) ?? 0;
  if ((seen & bit) !== 0) return seen;
  const custom = item.errorMessage !== undefined && !STRUCTURAL.has(code);
  issues.push({
    code,
    message: custom ? (item.errorMessage as string) : message,
    field: item.linkId,
    severity: 'error',
  });
  return seen | bit;
}

function checkString(
  item: AnswerConstraints,
  value: string,
  issues: RequirementIssue[],
  seen: number,
): number {
  // Count code points, not UTF-16 units, so an emoji is one character as a person would count it.
  if (item.minLength !== undefined && codePointLength(value) < item.minLength) {
    seen = report(
      item,
      issues,
      seen,
      'min_length_not_met',
      `The answer is shorter than ${item.minLength} characters.`,
    );
  }
  if (item.maxLength !== undefined && codePointLength(value) > item.maxLength) {
    seen = report(
      item,
      issues,
      seen,
      'max_length_exceeded',
      `The answer is longer than ${item.maxLength} characters.`,
    );
  }
  if (item.pattern !== undefined && !item.pattern.test(value)) {
    seen = report(item, issues, seen, 'pattern_mismatch', 'The answer does not have the required format.');
  }
  return seen;
}

/** The compiler stores numeric bounds for decimal items and date strings for date items. */
function checkBounds(
  item: AnswerConstraints,
  value: number | string,
  issues: RequirementIssue[],
  seen: number,
): number {
  const { min, max } = item;
  const below =
    typeof value === 'number'
      ? typeof min === 'number' && value < min
      : typeof min === 'string' && value < min;
  const above =
    typeof value === 'number'
      ? typeof max === 'number' && value > max
      : typeof max === 'string' && value > max;
  if (below)
    seen = report(item, issues, seen, 'below_min', `The answer is below the minimum of ${String(min)}.`);
  if (above)
    seen = report(item, issues, seen, 'above_max', `The answer is above the maximum of ${String(max)}.`);
  return seen;
}

function codePointLength(value: string): number {
  let length = 0;
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    // A high surrogate followed by its low surrogate is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    length += 1;
  }
  return length;
}
