import type { RequestHandler } from 'express';
import { HttpError } from '../http/http-error';
import { requestContext } from '../http/request-context';
import type { ApiKeyAuthenticator } from './api-key-authenticator';

export function authenticationMiddleware(authenticator: ApiKeyAuthenticator): RequestHandler {
  return (req, _res, next) => {
    authenticator.authenticate(req.header('authorization')).then((auth) => {
      if (!auth) {
        next(
          new HttpError(
            401,
            'unauthorized',
            'A valid API key for this environment is required (Authorization: Bearer <key>).',
            {
              headers: { 'WWW-Authenticate': 'Bearer' },
            },
          ),
        );
        return;
      }
      requestContext(req).auth = auth;
      next();
    }, next);
  };
}
