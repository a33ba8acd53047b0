import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

/**
 * A Node HTTP server for `app` whose requests and responses are born with the application's request and
 * response prototypes, so that Express has nothing to change when it takes them.
 *
 * Express gives each request and response the application's prototypes (`app.request`, `app.response`) as it
 * starts handling them, with `Object.setPrototypeOf`. Measured under load, an object re-parented that way, with
 * everything it holds, outlived every scavenge: it was copied, promoted, and freed only by the next
 * mark-compact, which made the young generation's pauses long and frequent (docs/performance.md, "The
 * half-rate tail"). Here the prototypes are subclasses' own (a derived class keeps one shape for all its
 * instances), made equivalent to Express's: the same parent, the same own properties (`app`).
 */
export function createExpressServer(app: Express): Server {
  class ExpressRequest extends IncomingMessage {}
  class ExpressResponse extends ServerResponse {}
  app.request = adopted(app.request, ExpressRequest.prototype);
  app.response = adopted(app.response, ExpressResponse.prototype);
  return createServer({ IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse }, app);
}

/** `prototype`, given what Express's own `current` has: its parent and its own properties but a constructor. */
function adopted<T extends object>(current: T, prototype: object): T {
  const { constructor: _ownConstructor, ...properties } = Object.getOwnPropertyDescriptors(current);
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(current) as object);
  Object.defineProperties(prototype, properties);
  return prototype as T;
}
