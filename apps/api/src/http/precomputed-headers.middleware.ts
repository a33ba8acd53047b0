import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * A middleware that sets the same response headers on every request (helmet's defaults do), run once here
 * against a recording response; the returned middleware replays what it set and removed, in one step instead
 * of one nested call per header (docs/performance.md). Throws if the middleware does not finish at once or
 * reads the request, so one that depends on it can never be frozen by mistake.
 */
export function precomputedHeaders(middleware: RequestHandler): RequestHandler {
  const set: Array<[string, string | number | readonly string[]]> = [];
  const removed: string[] = [];
  const recording = {
    setHeader(name: string, value: string | number | readonly string[]) {
      set.push([name, value]);
      return recording;
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  const untouchable = new Proxy({} as Request, {
    get: (_target, property) => {
      throw new Error(`precomputedHeaders: the middleware reads the request (${String(property)})`);
    },
  });
  let finished = false;
  let failure: unknown;
  void middleware(untouchable, recording as unknown as Response, (error?: unknown) => {
    finished = true;
    failure = error;
  });
  if (!finished || failure !== undefined) {
    throw new Error('precomputedHeaders: the middleware did not set its headers at once');
  }
  return (_req: Request, res: Response, next: NextFunction) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}
