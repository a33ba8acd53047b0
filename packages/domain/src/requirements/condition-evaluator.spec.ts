import type { AnswerKind } from './answer-validator';
import { compileCondition, type ConditionProblem, type ConditionScope } from './condition-evaluator';
import type { Answer, Condition } from './questionnaire.types';
import { bool, code, date, num, str } from './testing/template-builder';

// Item 0 is the one every leaf reads; its accepted kind follows the condition under test.
function evaluate(condition: Condition, answers: Answer[], kinds: AnswerKind[]): boolean {
  const problems: ConditionProblem[] = [];
  const scope: ConditionScope = {
    indexOf: (linkId) => (linkId === 'q' ? 0 : linkId === 'r' ? 1 : undefined),
    acceptedKinds: () => kinds,
  };
  const compiled = compileCondition(condition, scope, (problem) => problems.push(problem));
  expect(problems).toEqual([]);
  return compiled([answers, []]);
}

describe('compileCondition: comparison operators (FHIR semantics)', () => {
  type Row = [AnswerKind, string, Answer, Answer[], boolean];
  const rows: Row[] = [
    // decimal
    ['decimal', '=', num(5), [num(5)], true],
    ['decimal', '=', num(5), [num(4)], false],
    ['decimal', '=', num(5), [], false],
    ['decimal', '=', num(5), [num(4), num(5)], true],
    ['decimal', '!=', num(5), [], true],
    ['decimal', '!=', num(5), [num(4)], true],
    ['decimal', '!=', num(5), [num(5)], false],
    ['decimal', '!=', num(5), [num(4), num(5)], false],
    ['decimal', '>', num(5), [num(6)], true],
    ['decimal', '>', num(5), [num(5)], false],
    ['decimal', '>', num(5), [], false],
    ['decimal', '<', num(5), [num(4.5)], true],
    ['decimal', '<', num(5), [num(5)], false],
    ['decimal', '>=', num(5), [num(5)], true],
    ['decimal', '>=', num(5), [num(4.99)], false],
    ['decimal', '<=', num(5), [num(5)], true],
    ['decimal', '<=', num(5), [num(5.01)], false],
    ['decimal', '>', num(5), [num(1), num(9)], true],
    // date
    ['date', '=', date('2020-05-01'), [date('2020-05-01')], true],
    ['date', '=', date('2020-05-01'), [date('2020-05-02')], false],
    ['date', '!=', date('2020-05-01'), [], true],
    ['date', '!=', date('2020-05-01'), [date('2020-05-01')], false],
    ['date', '>', date('2020-05-01'), [date('2020-05-02')], true],
    ['date', '>', date('2020-05-01'), [date('2020-05-01')], false],
    ['date', '<', date('2020-05-01'), [date('2019-12-31')], true],
    ['date', '>=', date('2020-05-01'), [date('2020-05-01')], true],
    ['date', '<=', date('2020-05-01'), [date('2020-05-02')], false],
    ['date', '>', date('2020-05-01'), [date('2020-99-99')], false],
    // string
    ['string', '=', str('test'), [str('test')], true],
    ['string', '=', str('test'), [str('Test')], false],
    ['string', '!=', str('test'), [], true],
    ['string', '!=', str('test'), [str('test')], false],
    ['string', '>', str('tes'), [str('test')], true],
    ['string', '>', str('testing'), [str('test')], false],
    ['string', '<', str('test'), [str('tes')], true],
    ['string', '>=', str('test'), [str('test')], true],
    ['string', '<=', str('testing'), [str('test')], true],
    // boolean
    ['boolean', '=', bool(true), [bool(true)], true],
    ['boolean', '=', bool(true), [bool(false)], false],
    ['boolean', '=', bool(false), [bool(false)], true],
    ['boolean', '=', bool(false), [], false],
    ['boolean', '!=', bool(true), [], true],
    ['boolean', '!=', bool(true), [bool(false)], true],
    ['boolean', '!=', bool(true), [bool(true)], false],
    // coding: by code, and by system only when both give one
    ['coding', '=', code('B'), [code('B')], true],
    ['coding', '=', code('B'), [code('C')], false],
    ['coding', '=', code('B', 'sys'), [code('B')], true],
    ['coding', '=', code('B'), [code('B', 'sys')], true],
    ['coding', '=', code('B', 'sys'), [code('B', 'sys')], true],
    ['coding', '=', code('B', 'sys'), [code('B', 'other')], false],
    ['coding', '=', code('B'), [code('A'), code('B')], true],
    ['coding', '!=', code('B'), [], true],
    ['coding', '!=', code('B'), [code('A')], true],
    ['coding', '!=', code('B'), [code('A'), code('B')], false],
  ];

  it.each(rows)('%s %s %j on answers %j → %s', (kind, operator, value, answers, expected) => {
    const condition = { linkId: 'q', operator, answer: value } as Condition;
    expect(evaluate(condition, answers, [kind])).toBe(expected);
  });

  it('ignores answers of another kind instead of coercing them', () => {
    expect(evaluate({ linkId: 'q', operator: '=', answer: num(5) }, [str('5')], ['decimal'])).toBe(false);
    expect(evaluate({ linkId: 'q', operator: '>', answer: num(5) }, [str('9')], ['decimal'])).toBe(false);
  });
});

describe('compileCondition: exists', () => {
  it.each([
    [true, [], false],
    [true, [num(1)], true],
    [false, [], true],
    [false, [num(1)], false],
  ])('exists %s on %j → %s', (exists, answers, expected) => {
    expect(evaluate({ linkId: 'q', operator: 'exists', exists }, answers, ['decimal'])).toBe(expected);
  });
});

describe('compileCondition: all / any / not', () => {
  const five: Condition = { linkId: 'q', operator: '=', answer: num(5) };
  const big: Condition = { linkId: 'q', operator: '>', answer: num(3) };
  it.each([
    [{ all: [five, big] }, [num(5)], true],
    [{ all: [five, big] }, [num(4)], false],
    [{ all: [] }, [], true],
    [{ any: [five, big] }, [num(4)], true],
    [{ any: [five, big] }, [num(1)], false],
    [{ any: [] }, [], false],
    [{ not: five }, [num(5)], false],
    [{ not: { any: [five, { all: [big, { not: five }] }] } }, [num(4)], false],
    [{ not: { any: [five, { all: [big, { not: five }] }] } }, [num(2)], true],
  ] as Array<[Condition, Answer[], boolean]>)('nested case %#', (condition, answers, expected) => {
    expect(evaluate(condition, answers, ['decimal'])).toBe(expected);
  });
});

describe('compileCondition: problems', () => {
  const scope: ConditionScope = {
    indexOf: (linkId) => (linkId === 'q' ? 0 : undefined),
    acceptedKinds: () => ['coding'],
  };
  it.each([
    [{ linkId: 'nope', operator: 'exists', exists: true }, 'unknown_link_id'],
    [{ linkId: 'q', operator: '~', answer: code('A') }, 'invalid_condition'],
    [{ linkId: 'q', operator: '=', answer: num(1) }, 'invalid_condition'],
    [{ linkId: 'q', operator: '>', answer: code('A') }, 'invalid_condition'],
    [{ linkId: 'q', operator: '=', answer: {} }, 'invalid_condition'],
    [{ linkId: 'q', operator: 'exists', exists: 'yes' }, 'invalid_condition'],
    [{ all: [{ linkId: 'q', operator: 'exists', exists: true }], any: [] }, 'invalid_condition'],
    [{ all: 'no' }, 'invalid_condition'],
    ['a string', 'invalid_condition'],
  ])('%j is reported as %s', (condition, problemCode) => {
    const problems: ConditionProblem[] = [];
    compileCondition(condition, scope, (problem) => problems.push(problem));
    expect(problems.map((problem) => problem.code)).toEqual([problemCode]);
  });

  it('collects the items a condition reads', () => {
    const dependencies = new Set<number>();
    compileCondition(
      { not: { linkId: 'q', operator: 'exists', exists: true } },
      scope,
      () => undefined,
      dependencies,
    );
    expect([...dependencies]).toEqual([0]);
  });
});
