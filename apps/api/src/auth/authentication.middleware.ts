import type { Request, RequestHandler } from 'express';
import type { DatabaseOutageTracker } from '../http/database-outage-tracker';
import { HttpError } from '../http/http-error';
import { requestContext } from '../http/request-context';
import type { ApiKeyAuthenticator } from './api-key-authenticator';

/**
 * `Authorization: Bearer <key>` → the request's tenant scope, or 401 (which `refused`, when given, may turn
 * into another answer: the per-address limit of decision 0035). A key lookup that read the database (not the
 * authenticator's cache) tells the outage tracker the database answers again.
 */
export function authenticationMiddleware(
  authenticator: ApiKeyAuthenticator,
  outage?: DatabaseOutageTracker,
  refused?: (req: Request, unauthorized: HttpError) => Promise<HttpError>,
): RequestHandler {
  return (req, _res, next) => {
    authenticator.resolve(req.header('authorization')).then((resolved) => {
      if (!resolved) {
        const unauthorized = new HttpError(
          401,
          'unauthorized',
          'A valid API key for this environment is required (Authorization: Bearer <key>).',
          {
            headers: { 'WWW-Authenticate': 'Bearer' },
          },
        );
        if (refused) refused(req, unauthorized).then(next, next);
        else next(unauthorized);
        return;
      }
      if (resolved.fromDatabase) outage?.answered();
      requestContext(req).auth = resolved.key;
      next();
    }, next);
  };
}
