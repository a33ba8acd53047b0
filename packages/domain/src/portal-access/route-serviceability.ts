import { type PortalAuthMode } from '../authorization/authorization.types';
import { type PortalAccessFacts } from '../ports/portal-access.port';
import { type Environment } from '../shared/scope';

/** Why a production route cannot be served for an organization now (decision 0021). */
export const UNSERVICEABLE_REASONS = ['portal_connection_missing', 'portal_credentials_missing'] as const;
export type UnserviceableReason = (typeof UNSERVICEABLE_REASONS)[number];

export type ModeServiceability = { serviceable: true } | { serviceable: false; reason: UnserviceableReason };

export interface RouteServiceability {
  serviceable: boolean;
  /** Null when serviceable; otherwise why the default mode (automated where offered) cannot be used. */
  reason: UnserviceableReason | null;
  /** The route's portal auth modes a create can use now. */
  portalAuthModes: PortalAuthMode[];
}

export const UNSERVICEABLE_MESSAGES: Readonly<Record<UnserviceableReason, string>> = {
  portal_connection_missing: "The payer's portal is not connected to the service yet.",
  portal_credentials_missing: "The organization has no stored credentials for the payer's portal.",
};

/**
 * Decision 0030: the sandbox always reaches the simulated payer website; a production route needs its payer's
 * portal connection, and `automated` also needs the organization's credentials (`customer_login` signs in
 * with the customer's own account).
 */
export function modeServiceability(
  environment: Environment,
  mode: PortalAuthMode,
  facts: PortalAccessFacts | null,
): ModeServiceability {
  if (environment === 'sandbox') return { serviceable: true };
  if (!facts?.connection) return { serviceable: false, reason: 'portal_connection_missing' };
  if (mode === 'automated' && !facts.credentials) {
    return { serviceable: false, reason: 'portal_credentials_missing' };
  }
  return { serviceable: true };
}

/** A route as `GET /v1/prior-auth/routes` reports it: serviceable when any of its modes is. */
export function routeServiceability(
  environment: Environment,
  portalAuthModes: readonly PortalAuthMode[],
  facts: PortalAccessFacts | null,
): RouteServiceability {
  const usable = portalAuthModes.filter((mode) => modeServiceability(environment, mode, facts).serviceable);
  if (usable.length > 0) return { serviceable: true, reason: null, portalAuthModes: usable };
  const preferred = portalAuthModes.includes('automated') ? 'automated' : portalAuthModes[0];
  const verdict = preferred === undefined ? null : modeServiceability(environment, preferred, facts);
  return {
    serviceable: false,
    reason: verdict && !verdict.serviceable ? verdict.reason : 'portal_connection_missing',
    portalAuthModes: [],
  };
}
