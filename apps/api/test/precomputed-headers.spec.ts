import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { precomputedHeaders } from '../src/http/precomputed-headers.middleware';

const headersWith = async (middleware: RequestHandler) => {
  const app = express();
  app.disable('x-powered-by');
  app.use(middleware);
  app.get('/', (_req, res) => res.json({ ok: true }));
  const response = await request(app).get('/').expect(200);
  const { date: _date, ...headers } = response.headers;
  return headers;
};

describe('precomputedHeaders', () => {
  it("answers with exactly the headers helmet's defaults set", async () => {
    const direct = await headersWith(helmet());
    expect(Object.keys(direct)).toEqual(
      expect.arrayContaining(['content-security-policy', 'x-frame-options']),
    );
    expect(await headersWith(precomputedHeaders(helmet()))).toEqual(direct);
  });

  it('refuses a middleware that reads the request or does not finish at once', () => {
    expect(() => precomputedHeaders((req, _res, next) => (req.secure ? next() : next()))).toThrow(
      /reads the request \(secure\)/,
    );
    expect(() => precomputedHeaders((_req, _res, next) => void setImmediate(next))).toThrow(/at once/);
    expect(() => precomputedHeaders((_req, _res, next) => next(new Error('no')))).toThrow(/at once/);
  });
});
