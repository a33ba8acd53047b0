import { type Environment } from '../shared/scope';

/** Whose customer session: one case of one tenant (its environment included, as the case's key is). */
export interface CustomerPortalSessionKey {
  organizationId: string;
  environment: Environment;
  authorizationId: string;
}

/**
 * How long a customer's session is kept after its last use (decision 0044): every portal run that uses it renews
 * it. A review generated from such a run shows its live-session link for as long
 * (docs/decisions/0046-live-view-url-on-review.md).
 */
export const CUSTOMER_PORTAL_SESSION_TTL_MS = 4 * 60 * 60 * 1000;

/**
 * The payer portal sessions customers signed in to for their `customer_login` cases
 * (docs/decisions/0044-customer-sessions-shared-by-workers.md): the browser's state after the sign-in (its
 * cookies), never what was typed. Every process of the cluster sees the same sessions, so a case's later runs
 * go on from the customer's sign-in whichever worker takes them. A session is short-lived: it opens only until
 * its `expiresAt`, and is gone once its case no longer needs the payer.
 */
export interface CustomerPortalSessions {
  /** Keeps (or replaces) the case's session, opaque to the store, until `expiresAt`. */
  keep(key: CustomerPortalSessionKey, state: string, expiresAt: Date): Promise<void>;
  /** The case's session while it has not expired at `now`; null when there is none (or it cannot be read). */
  find(key: CustomerPortalSessionKey, now: Date): Promise<string | null>;
  /** Drops the case's session (the portal no longer honours it). */
  forget(key: CustomerPortalSessionKey): Promise<void>;
  /** Drops the sessions expired at `now` and those of cases done with the payer; returns how many went. */
  purgeExpired(now: Date): Promise<number>;
}
