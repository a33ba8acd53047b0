import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Forwards a rejected handler promise to the error middleware (so every failure gets the envelope). */
export const asyncHandler =
  (handler: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch(next);
  };
