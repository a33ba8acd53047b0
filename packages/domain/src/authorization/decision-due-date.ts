import type { QuestionnaireResponse } from '../requirements/questionnaire.types';

const HOUR_MS = 60 * 60 * 1000;

/** CMS Interoperability and Prior Authorization rule (CMS-0057-F): 72 hours for expedited requests. */
export const EXPEDITED_DECISION_HOURS = 72;
/** Same rule: 7 calendar days for standard requests. */
export const STANDARD_DECISION_DAYS = 7;

/** The linkId whose boolean answer marks a request as expedited. */
export const EXPEDITED_LINK_ID = 'request.expedited';

/** When the payer's decision is due, counted from proof of receipt. */
export const computeDecisionDueAt = (receivedAt: Date, expedited: boolean): Date => {
  if (expedited) return new Date(receivedAt.getTime() + EXPEDITED_DECISION_HOURS * HOUR_MS);
  // Calendar days in UTC, so the deadline is independent of the server's time zone.
  const due = new Date(receivedAt.getTime());
  due.setUTCDate(due.getUTCDate() + STANDARD_DECISION_DAYS);
  return due;
};

export const isExpeditedRequest = (response: QuestionnaireResponse): boolean =>
  response.item.some(
    (item) => item.linkId === EXPEDITED_LINK_ID && item.answer.some((a) => a.valueBoolean === true),
  );
