import { createHash } from 'node:crypto';
import { REQUESTED_DOCUMENT } from './website-scenarios';
import { type RequestRow } from './sandbox-store';

export type RequestStatus =
  | { status: 'pending' }
  | { status: 'more_information'; documents: { type: string; label: string }[] }
  | {
      status: 'approved' | 'modified' | 'denied' | 'not_required';
      decidedAt: Date;
      authorizationNumber: string | null;
      effectiveFrom: string | null;
      effectiveTo: string | null;
      denialReasons: string[];
      modifications: string[];
      statusText: string;
    };

const DAY_MS = 24 * 60 * 60 * 1000;
const isoDate = (date: Date) => date.toISOString().slice(0, 10);

/**
 * The payer's answer to a request, a pure function of the stored request and the time: nothing is decided
 * before `decisionDelayMs` has passed since receipt (decision 0013's timing, now the website's own).
 */
export function statusOf(request: RequestRow, now: Date, decisionDelayMs: number): RequestStatus {
  const decidedAt = new Date(request.receivedAt.getTime() + decisionDelayMs);
  if (now < decidedAt) return { status: 'pending' };
  const authorizationNumber = `PSA-${createHash('sha256').update(request.referenceNumber).digest('hex').slice(0, 10).toUpperCase()}`;
  const window = (days: number) => ({
    effectiveFrom: isoDate(request.receivedAt),
    effectiveTo: isoDate(new Date(request.receivedAt.getTime() + days * DAY_MS)),
  });
  const none = {
    decidedAt,
    authorizationNumber: null,
    effectiveFrom: null,
    effectiveTo: null,
    denialReasons: [],
    modifications: [],
  };
  switch (request.scenario) {
    case 'pending':
      return { status: 'pending' };
    case 'more_info':
      if (!request.documents.some((d) => d.documentType === REQUESTED_DOCUMENT.type)) {
        return { status: 'more_information', documents: [{ ...REQUESTED_DOCUMENT }] };
      }
      break;
    case 'denied':
      return {
        ...none,
        status: 'denied',
        statusText: 'Denied',
        denialReasons: ['The submitted documentation does not meet the medical necessity criteria.'],
      };
    case 'modified':
      return {
        ...none,
        ...window(90),
        status: 'modified',
        authorizationNumber,
        statusText: 'Approved with modifications',
        modifications: ['Approved for 90 days instead of the requested 180 days.'],
      };
    case 'not_required':
      return {
        ...none,
        status: 'not_required',
        statusText: 'No prior authorization required for this service',
      };
  }
  return { ...none, ...window(180), status: 'approved', authorizationNumber, statusText: 'Approved' };
}
