import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** A router used as a middleware exposes its layers; a chain shows those of the routers it runs. */
type WithStack = RequestHandler & { stack?: unknown[] };

/**
 * Runs `handlers` in order as one middleware: one layer of the router instead of one each. Every layer the
 * router walks costs a path match, its result objects and a dispatch; with sixteen layers before any route
 * that was a sixth of what a retrieve allocated (docs/performance.md). Within the chain a handler behaves as
 * in a router: `next()` runs the one after it, `next(error)` leaves the chain for the error middleware, and a
 * handler that throws, or returns a promise that rejects, passes its error on.
 *
 * The chain's `stack` lists the layers of the routers it runs, so code that lists the app's routes still finds
 * them.
 */
export function middlewareChain(...handlers: WithStack[]): RequestHandler & { stack: unknown[] } {
  const last = handlers.length;
  const chain = (req: Request, res: Response, done: NextFunction): void => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null) {
        done(error);
        return;
      }
      if (index === last) {
        done();
        return;
      }
      const handler = handlers[index++]!;
      try {
        const returned: unknown = handler(req, res, next);
        if (returned instanceof Promise) {
          returned.then(undefined, (rejection: unknown) => next(rejection ?? new Error('Rejected promise')));
        }
      } catch (thrown) {
        next(thrown ?? new Error('Thrown without a value'));
      }
    };
    next();
  };
  return Object.assign(chain, { stack: handlers.flatMap((handler) => handler.stack ?? []) });
}
