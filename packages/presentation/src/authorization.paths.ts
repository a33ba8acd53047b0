/*
 * Where the API serves authorizations, for the links other resources carry (a review's `liveViewUrl`, decision
 * 0046): the worker builds them as well as the API, so the paths live here, beside the shapes both render.
 */

/** The two path families the spec names for authorizations; one route table serves both. */
export const AUTHORIZATION_PATH_FAMILIES = {
  primary: '/v1/prior-auth/authorizations',
  alternate: '/v1/prior-authorizations',
} as const;

/** The side-effect-free live-session read of one authorization, under either path family. */
export const LIVE_SESSION_PATH = '/:authorizationId/live-session';

/**
 * The absolute URL of an authorization's live-session read under the API's public base URL (as grant links
 * are): it mints no capability, so it may be stored, sent in webhooks and replayed.
 */
export function liveSessionReadUrl(publicBaseUrl: string, authorizationId: string): string {
  const path = LIVE_SESSION_PATH.replace(':authorizationId', encodeURIComponent(authorizationId));
  return `${publicBaseUrl.replace(/\/+$/, '')}${AUTHORIZATION_PATH_FAMILIES.primary}${path}`;
}
