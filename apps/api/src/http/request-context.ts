import type { TenantScope } from '@prior-auth/domain';
import type { ApiVersion } from '@prior-auth/platform';
import type { Request } from 'express';

export interface AuthenticatedKey {
  apiKeyId: string;
  scope: TenantScope;
  /** The version pinned on the key (null → the current one); the request header overrides it. */
  apiVersion: string | null;
}

/** Per-request data attached by the middlewares; kept off `req` properties typed by Express itself. */
export interface RequestContext {
  requestId: string;
  startedAt: bigint;
  /** The mount path of the router whose route matched (Express restores `req.baseUrl` on the way out). */
  routeBase?: string;
  auth?: AuthenticatedKey;
  /** Set behind authentication by the API-version middleware. */
  apiVersion?: ApiVersion;
}

const CONTEXT = Symbol('requestContext');

export function setRequestContext(req: Request, context: RequestContext): void {
  (req as unknown as Record<symbol, RequestContext>)[CONTEXT] = context;
}

export function requestContext(req: Request): RequestContext {
  const context = (req as unknown as Record<symbol, RequestContext | undefined>)[CONTEXT];
  if (!context) throw new Error('request context missing: is the request-id middleware installed first?');
  return context;
}

/**
 * Called by each route the route tables register, as it starts: remembers the mount path the route matched
 * under, which Express resets once the request leaves that router (an error answered by the app's handler,
 * the access-log line). A request without a context (a bare router in a test) is left alone.
 */
export function noteRouteBase(req: Request): void {
  const context = (req as unknown as Record<symbol, RequestContext | undefined>)[CONTEXT];
  if (context) context.routeBase = req.baseUrl;
}

/** The caller's tenant scope; only valid behind the authentication middleware. */
export function scopeOf(req: Request): TenantScope {
  const auth = requestContext(req).auth;
  if (!auth) throw new Error('unauthenticated request reached an authenticated handler');
  return auth.scope;
}

/** A path parameter of the matched route, as the string Express captured. */
export const pathParam = (req: Request, name: string): string => String(req.params[name]);
