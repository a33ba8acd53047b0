import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { middlewareChain } from './middleware-chain';

const ranFor = (req: unknown): string[] => (req as { ran: string[] }).ran;

/** An app around the chain: each request notes what ran, answered by the layer after it or on error. */
function appWith(chain: RequestHandler) {
  const app = express();
  app.use((req, _res, next) => {
    (req as unknown as { ran: string[] }).ran = [];
    next();
  });
  app.use(chain);
  app.use((req, res) => {
    ranFor(req).push('after');
    res.json({ ran: ranFor(req) });
  });
  const onError: ErrorRequestHandler = (error: Error, req, res, _next) => {
    res.status(500).json({ ran: ranFor(req), error: error.message });
  };
  app.use(onError);
  return app;
}

const step =
  (name: string): RequestHandler =>
  (req, _res, next) => {
    ranFor(req).push(name);
    next();
  };

describe('middlewareChain', () => {
  it('runs its handlers in order, then the layer after it', async () => {
    const later: RequestHandler = (req, _res, next) => {
      ranFor(req).push('later');
      setImmediate(next);
    };
    const response = await request(appWith(middlewareChain(step('a'), later, step('b')))).get('/');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ran: ['a', 'later', 'b', 'after'] });
  });

  it('lets a handler answer without running the rest', async () => {
    const answer: RequestHandler = (_req, res) => {
      res.status(204).end();
    };
    const chain = middlewareChain(step('a'), answer, step('b'));
    const app = appWith(chain);
    expect((await request(app).get('/')).status).toBe(204);
  });

  it.each<[string, RequestHandler]>([
    ['passed to next', (_req, _res, next) => next(new Error('refused'))],
    [
      'thrown',
      () => {
        throw new Error('refused');
      },
    ],
    ['rejected', () => Promise.reject(new Error('refused'))],
    ['passed to next later', (_req, _res, next) => setImmediate(() => next(new Error('refused')))],
  ])('leaves the chain for the error middleware with an error %s', async (_how, failing) => {
    const response = await request(appWith(middlewareChain(step('a'), failing, step('b')))).get('/');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ ran: ['a'], error: 'refused' });
  });

  it('runs a router inside it, and shows that router’s layers as its own stack', async () => {
    const router = express.Router();
    router.get('/routed', (_req, res) => {
      res.json({ routed: true });
    });
    const chain = middlewareChain(step('a'), router, step('b'));
    const app = appWith(chain);

    expect((await request(app).get('/routed')).body).toEqual({ routed: true });
    expect((await request(app).get('/elsewhere')).body).toEqual({ ran: ['a', 'b', 'after'] });
    expect(chain.stack).toEqual(router.stack);
    expect(chain.stack).toHaveLength(1);
  });
});
