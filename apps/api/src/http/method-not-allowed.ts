import type { RequestHandler } from 'express';
import { HttpError } from './http-error';

/** Decision 0023: a known path with a method it does not serve answers 405 method_not_allowed. */
export const methodNotAllowed: RequestHandler = (req, _res, next) =>
  next(new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on this path.`));
