import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

/**
 * A Node HTTP server for `app` whose requests and responses are born with the application's request and
 * response prototypes, so that Express has nothing to change when it takes them.
 *
 * Express gives each request and response the application's prototypes (`app.request`, `app.response`) as it
 * starts handling them, with `Object.setPrototypeOf`. On Node 20's V8 an object re-parented that way ends with a
 * hidden class of its own, each property added later makes another, and under load such requests outlived
 * every scavenge until a mark-compact freed them: long, frequent young-generation pauses (docs/performance.md,
 * "Requests born with Express's prototypes"). Here the prototypes are derived classes' own (a derived class
 * keeps one shape for all its instances), made equivalent to Express's: the same parent, the same own
 * properties (`app`).
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
