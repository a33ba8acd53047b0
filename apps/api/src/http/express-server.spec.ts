import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import express from 'express';
import { createExpressServer } from './express-server';

/** Serves `server` on a free port for `use`, then closes it. */
async function serving<T>(server: Server, use: (origin: string) => Promise<T>): Promise<T> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
  }
}

function appAnswering() {
  const app = express();
  app.get('/echo', (req, res) => {
    res.locals.seen = req.get('X-Probe');
    res.status(201).json({ probe: res.locals.seen, sameApp: req.app === app, query: req.query });
  });
  return app;
}

/** V8's own answer to whether two objects have one hidden class (map). */
function sameShape(): (a: object, b: object) => boolean {
  setFlagsFromString('--allow-natives-syntax');
  return new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
}

describe('createExpressServer', () => {
  it('creates each request and response with the prototypes Express gives them', async () => {
    const app = appAnswering();
    const server = createExpressServer(app);
    const born: boolean[] = [];
    // Runs before the application: what Node created, before Express touched it.
    server.prependListener('request', (req, res) => {
      born.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
    });
    await serving(server, async (origin) => {
      for (const probe of ['one', 'two']) {
        const response = await fetch(`${origin}/echo?x=${probe}`, { headers: { 'X-Probe': probe } });
        expect(response.status).toBe(201);
        expect(await response.json()).toEqual({ probe, sameApp: true, query: { x: probe } });
      }
    });
    expect(born).toEqual([true, true, true, true]);
  });

  it('gives every request, and every response, the same shape once Express is done with it', async () => {
    const haveSameMap = sameShape();
    const app = appAnswering();
    const server = createExpressServer(app);
    const answered: Array<[object, object]> = [];
    server.on('request', (req, res) => res.once('finish', () => answered.push([req, res])));
    await serving(server, async (origin) => {
      for (const probe of ['one', 'two', 'three']) {
        await (await fetch(`${origin}/echo?x=${probe}`, { headers: { 'X-Probe': probe } })).text();
      }
    });
    expect(answered).toHaveLength(3);
    const [[firstReq, firstRes]] = answered as [[object, object]];
    // Re-parented by Express (a plain `createServer(app)`), each request ends with a hidden class of its own.
    expect(answered.map(([req, res]) => [haveSameMap(req, firstReq), haveSameMap(res, firstRes)])).toEqual([
      [true, true],
      [true, true],
      [true, true],
    ]);
  });

  it('keeps Express’s request and response behaviour on the prototypes it gives them', () => {
    const app = express();
    const [requestParent, responseParent] = [
      Object.getPrototypeOf(app.request),
      Object.getPrototypeOf(app.response),
    ];
    createExpressServer(app);
    expect(Object.getPrototypeOf(app.request)).toBe(requestParent);
    expect(Object.getPrototypeOf(app.response)).toBe(responseParent);
    expect(app.request.app).toBe(app);
    expect(app.response.app).toBe(app);
    expect(typeof app.request.get).toBe('function');
    expect(typeof app.response.json).toBe('function');
  });

  it('serves one application from a second server too', async () => {
    const app = appAnswering();
    createExpressServer(app);
    await serving(createExpressServer(app), async (origin) => {
      const response = await fetch(`${origin}/echo`, { headers: { 'X-Probe': 'again' } });
      expect(await response.json()).toEqual({ probe: 'again', sameApp: true, query: {} });
    });
  });
});
