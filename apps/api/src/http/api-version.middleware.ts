import {
  API_VERSION_HEADER,
  API_VERSIONS,
  CURRENT_API_VERSION,
  LEGACY_API_VERSION,
  isApiVersion,
  type ApiVersion,
} from '@prior-auth/platform';
import type { Request, RequestHandler } from 'express';
import { validationFailed } from './http-error';
import { requestContext } from './request-context';

/*
 * Decision 0029: the version of a request is its `Prior-Auth-Version` header when sent, else the version
 * pinned on the API key, else the current one; every `/v1` response names the version used.
 */

/**
 * Before authentication: every `/v1` response (a 401 too) carries the header from the start, naming the sent
 * version when it is one, else the current one. `resolveApiVersion` replaces it once the key is known.
 */
export const announceApiVersion: RequestHandler = (req, res, next) => {
  const sent = req.header(API_VERSION_HEADER);
  res.setHeader(API_VERSION_HEADER, isApiVersion(sent) ? sent : CURRENT_API_VERSION);
  next();
};

/** Behind authentication: the request's version, or 422 at `["headers", "Prior-Auth-Version"]`. */
export const resolveApiVersion: RequestHandler = (req, res, next) => {
  const context = requestContext(req);
  const sent = req.header(API_VERSION_HEADER);
  if (sent !== undefined && !isApiVersion(sent)) {
    next(
      validationFailed([
        {
          errorType: 'value_error',
          location: ['headers', API_VERSION_HEADER],
          message: `${API_VERSION_HEADER} must be one of ${API_VERSIONS.join(', ')}`,
        },
      ]),
    );
    return;
  }
  const pinned = context.auth?.apiVersion;
  const version: ApiVersion = sent ?? (isApiVersion(pinned) ? pinned : CURRENT_API_VERSION);
  context.apiVersion = version;
  res.setHeader(API_VERSION_HEADER, version);
  next();
};

/** The version of an authenticated `/v1` request. */
export const apiVersionOf = (req: Request): ApiVersion =>
  requestContext(req).apiVersion ?? CURRENT_API_VERSION;

export const isLegacyRequest = (req: Request): boolean => apiVersionOf(req) === LEGACY_API_VERSION;
