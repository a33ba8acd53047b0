import { answerKind, dateOf, isValidDate, numberOf, stringOf, type AnswerKind } from './answer-validator';
import {
  COMPARISON_OPERATORS as OPERATORS,
  type Answer,
  type ComparisonOperator,
} from './questionnaire.types';

/** Answers per item index; an item that is not allowed has an empty entry, so conditions read it as unanswered. */
export type AnswersByIndex = ReadonlyArray<readonly Answer[]>;

/** A condition turned into a closure once per template, so evaluation does no parsing or linkId lookups. */
export type CompiledCondition = (answers: AnswersByIndex) => boolean;

export interface ConditionProblem {
  code: 'unknown_link_id' | 'invalid_condition';
  /** The linkId the condition reads, when the problem is about it. */
  reference?: string;
  message: string;
}

export interface ConditionScope {
  indexOf(linkId: string): number | undefined;
  /** Answer kinds the item accepts; a comparison with any other kind could never hold. */
  acceptedKinds(index: number): readonly AnswerKind[];
}

const COMPARISON_OPERATORS: ReadonlySet<string> = new Set<string>(OPERATORS);
const ORDERED_KINDS: ReadonlySet<AnswerKind> = new Set<AnswerKind>(['decimal', 'date', 'string']);
const CONNECTIVES = ['all', 'any', 'not', 'linkId'] as const;

const never: CompiledCondition = () => false;

/**
 * Compiles a condition (validating it on the way). Problems are reported, not thrown, so a template's
 * problems can be listed together; the returned closure is then meaningless. `dependencies` collects the
 * indexes of the items read.
 */
export function compileCondition(
  condition: unknown,
  scope: ConditionScope,
  onProblem: (problem: ConditionProblem) => void,
  dependencies?: Set<number>,
): CompiledCondition {
  const compile = (node: unknown): CompiledCondition => {
    if (!isRecord(node)) {
      onProblem({ code: 'invalid_condition', message: 'a condition must be an object' });
      return never;
    }
    const present = CONNECTIVES.filter((key) => node[key] !== undefined);
    if (present.length !== 1) {
      onProblem({
        code: 'invalid_condition',
        message: 'a condition must have exactly one of all, any, not, linkId',
      });
      return never;
    }
    switch (present[0]) {
      case 'all':
      case 'any': {
        const key = present[0];
        const children = node[key];
        if (!Array.isArray(children)) {
          onProblem({ code: 'invalid_condition', message: `"${key}" must be an array of conditions` });
          return never;
        }
        const parts = children.map(compile);
        return key === 'all'
          ? (answers) => {
              for (const part of parts) if (!part(answers)) return false;
              return true;
            }
          : (answers) => {
              for (const part of parts) if (part(answers)) return true;
              return false;
            };
      }
      case 'not': {
        const inner = compile(node['not']);
        return (answers) => !inner(answers);
      }
      default:
        return compileLeaf(node, scope, onProblem, dependencies);
    }
  };
  return compile(condition);
}

function compileLeaf(
  node: Record<string, unknown>,
  scope: ConditionScope,
  onProblem: (problem: ConditionProblem) => void,
  dependencies: Set<number> | undefined,
): CompiledCondition {
  const linkId = node['linkId'];
  if (typeof linkId !== 'string') {
    onProblem({ code: 'invalid_condition', message: 'a condition linkId must be a string' });
    return never;
  }
  const index = scope.indexOf(linkId);
  if (index === undefined) {
    onProblem({
      code: 'unknown_link_id',
      reference: linkId,
      message: `condition references unknown linkId "${linkId}"`,
    });
    return never;
  }
  dependencies?.add(index);
  const operator = node['operator'];

  if (operator === 'exists') {
    const exists = node['exists'];
    if (typeof exists !== 'boolean') {
      onProblem({
        code: 'invalid_condition',
        reference: linkId,
        message: '"exists" needs a boolean "exists"',
      });
      return never;
    }
    return (answers) => (answers[index]?.length ?? 0) > 0 === exists;
  }

  if (typeof operator !== 'string' || !COMPARISON_OPERATORS.has(operator)) {
    onProblem({
      code: 'invalid_condition',
      reference: linkId,
      message: `unknown operator "${String(operator)}"`,
    });
    return never;
  }
  const expected = node['answer'];
  const kind = answerKind(expected);
  if (kind === undefined) {
    onProblem({
      code: 'invalid_condition',
      reference: linkId,
      message: 'a comparison needs an answer with exactly one valid value',
    });
    return never;
  }
  const accepted = scope.acceptedKinds(index);
  if (!accepted.includes(kind)) {
    onProblem({
      code: 'invalid_condition',
      reference: linkId,
      message: `condition compares "${linkId}" (${accepted.join(' or ')}) with a ${kind} value`,
    });
    return never;
  }
  const value = expected as Answer;
  if (kind === 'date' && !isValidDate(dateOf(value) ?? '')) {
    onProblem({
      code: 'invalid_condition',
      reference: linkId,
      message: 'a date condition needs a YYYY-MM-DD date',
    });
    return never;
  }

  if (operator === '=' || operator === '!=') {
    const equals = equalityTest(kind, value);
    const wanted = operator === '=';
    // FHIR: "=" holds when some answer equals; "!=" when none does, so an unanswered item satisfies it.
    return (answers) => {
      const list = answers[index] ?? [];
      for (const answer of list) if (isAnswerObject(answer) && equals(answer)) return wanted;
      return !wanted;
    };
  }

  if (!ORDERED_KINDS.has(kind)) {
    onProblem({
      code: 'invalid_condition',
      reference: linkId,
      message: `operator "${operator}" needs a decimal, date or string value`,
    });
    return never;
  }
  const compare = orderingTest(kind, value);
  const holds = relation(operator as ComparisonOperator);
  return (answers) => {
    const list = answers[index] ?? [];
    for (const answer of list) {
      if (!isAnswerObject(answer)) continue;
      const order = compare(answer);
      if (order !== undefined && holds(order)) return true;
    }
    return false;
  };
}

function equalityTest(kind: AnswerKind, expected: Answer): (answer: Answer) => boolean {
  switch (kind) {
    case 'string': {
      const value = stringOf(expected);
      return (answer) => stringOf(answer) === value;
    }
    case 'boolean': {
      const value = expected.valueBoolean;
      return (answer) => answer.valueBoolean === value;
    }
    case 'date': {
      const value = dateOf(expected);
      return (answer) => dateOf(answer) === value;
    }
    case 'decimal': {
      const value = numberOf(expected);
      return (answer) => numberOf(answer) === value;
    }
    case 'coding': {
      const code = expected.valueCoding?.code;
      const system = expected.valueCoding?.system;
      // Codings match by code, and by system only when both sides name one (real forms often omit it).
      return (answer) => {
        const coding: unknown = answer.valueCoding;
        if (typeof coding !== 'object' || coding === null) return false;
        const { code: answerCode, system: answerSystem } = coding as { code?: unknown; system?: unknown };
        return (
          answerCode === code &&
          (system === undefined || answerSystem === undefined || answerSystem === system)
        );
      };
    }
  }
}

/** Sign of answer − expected, or undefined when the answer has no comparable value of that kind. */
function orderingTest(kind: AnswerKind, expected: Answer): (answer: Answer) => number | undefined {
  if (kind === 'decimal') {
    const value = numberOf(expected) as number;
    return (answer) => {
      const actual = numberOf(answer);
      return actual === undefined ? undefined : Math.sign(actual - value);
    };
  }
  const read = kind === 'date' ? dateOf : stringOf;
  const value = read(expected) as string;
  const checkDate = kind === 'date';
  // Code-unit order, not localeCompare: evaluation must not depend on the host's locale.
  return (answer) => {
    const actual = read(answer);
    if (typeof actual !== 'string' || (checkDate && !isValidDate(actual))) return undefined;
    return actual < value ? -1 : actual > value ? 1 : 0;
  };
}

function relation(operator: ComparisonOperator): (order: number) => boolean {
  switch (operator) {
    case '>':
      return (order) => order > 0;
    case '<':
      return (order) => order < 0;
    case '>=':
      return (order) => order >= 0;
    case '<=':
      return (order) => order <= 0;
    default:
      return (order) => order === 0;
  }
}

// Answers come from clients and stored JSON; a null in the list must not crash evaluation.
function isAnswerObject(answer: unknown): answer is Answer {
  return typeof answer === 'object' && answer !== null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
