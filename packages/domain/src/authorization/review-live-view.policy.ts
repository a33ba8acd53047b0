import { CUSTOMER_PORTAL_SESSION_TTL_MS } from '../ports/customer-portal-sessions.port';
import { isTerminalStatus } from './authorization-status.state-machine';
import { type AuthorizationStatus, type ReviewSnapshot } from './authorization.types';

/**
 * The review's `liveViewUrl` as shown at `at` (docs/decisions/0046-live-view-url-on-review.md): the portal
 * stores the link only when the review was prepared while the customer's sign-in was held, and that sign-in was
 * renewed by the run that prepared it. It is shown until that renewal would have lapsed, and never once the case
 * is done with the payer (its session is purged then): decided from the snapshot alone, with no read per request.
 */
export function reviewLiveViewUrl(
  snapshot: Pick<ReviewSnapshot, 'liveViewUrl' | 'generatedAt'>,
  status: AuthorizationStatus,
  at: Date,
): string | null {
  const lapsesAt = reviewLiveViewUrlLapsesAt(snapshot, status);
  return lapsesAt !== null && at.getTime() < lapsesAt ? snapshot.liveViewUrl : null;
}

/**
 * When (epoch ms) the review's `liveViewUrl` stops being shown, or null when it is never shown: the only moment
 * at which the same snapshot reads differently, for readers that keep what they showed.
 */
export function reviewLiveViewUrlLapsesAt(
  snapshot: Pick<ReviewSnapshot, 'liveViewUrl' | 'generatedAt'>,
  status: AuthorizationStatus,
): number | null {
  if (snapshot.liveViewUrl === null || isTerminalStatus(status)) return null;
  return new Date(snapshot.generatedAt).getTime() + CUSTOMER_PORTAL_SESSION_TTL_MS;
}
