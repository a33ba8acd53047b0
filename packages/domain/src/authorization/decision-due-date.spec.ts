import { computeDecisionDueAt, isExpeditedRequest } from './decision-due-date';

describe('computeDecisionDueAt', () => {
  it.each([
    ['standard: 7 calendar days', '2026-03-02T10:00:00.000Z', false, '2026-03-09T10:00:00.000Z'],
    ['standard across a month end', '2026-02-25T23:30:00.000Z', false, '2026-03-04T23:30:00.000Z'],
    [
      'standard across a US DST change (UTC based)',
      '2026-03-06T12:00:00.000Z',
      false,
      '2026-03-13T12:00:00.000Z',
    ],
    ['expedited: 72 hours', '2026-03-02T10:00:00.000Z', true, '2026-03-05T10:00:00.000Z'],
    ['expedited across a year end', '2026-12-30T18:15:00.000Z', true, '2027-01-02T18:15:00.000Z'],
  ])('%s', (_name, receivedAt, expedited, due) => {
    expect(computeDecisionDueAt(new Date(receivedAt), expedited).toISOString()).toBe(due);
  });

  it('does not modify the receipt time it is given', () => {
    const receivedAt = new Date('2026-03-02T10:00:00.000Z');
    computeDecisionDueAt(receivedAt, false);
    expect(receivedAt.toISOString()).toBe('2026-03-02T10:00:00.000Z');
  });
});

describe('isExpeditedRequest', () => {
  it.each([
    [[{ linkId: 'request.expedited', answer: [{ valueBoolean: true }] }], true],
    [[{ linkId: 'request.expedited', answer: [{ valueBoolean: false }] }], false],
    [[{ linkId: 'request.expedited', answer: [{ valueString: 'true' }] }], false],
    [[{ linkId: 'other', answer: [{ valueBoolean: true }] }], false],
    [[], false],
  ])('%j → %s', (item, expected) => {
    expect(isExpeditedRequest({ item })).toBe(expected);
  });
});
