import type { Request, Response, Router } from 'express';
import { asyncHandler } from './async-handler';
import { methodNotAllowed } from './method-not-allowed';

export type RouteHandler = (req: Request, res: Response) => Promise<void>;
type Method = 'get' | 'post' | 'patch' | 'delete';

/** Each path with the handler of every method it serves, in registration order. */
export type RouteTable = Record<string, Partial<Record<Method, RouteHandler>>>;

/**
 * Registers a table of routes on the router: every handler's rejection reaches the error middleware, and any
 * other method on a known path answers 405 method_not_allowed (decision 0023).
 */
export function addRoutes<R extends Pick<Router, 'route'>>(router: R, table: RouteTable): R {
  for (const [path, methods] of Object.entries(table)) {
    const route = router.route(path);
    for (const [method, handler] of Object.entries(methods) as Array<[Method, RouteHandler]>) {
      route[method](asyncHandler(handler));
    }
    route.all(methodNotAllowed);
  }
  return router;
}
