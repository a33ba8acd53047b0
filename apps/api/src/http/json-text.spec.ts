import express from 'express';
import request from 'supertest';
import { sendJsonText } from './json-text';

const value = { id: 'auth_1', text: 'naïve — ünïcödé', items: [1, 2, 3] };

/**
 * One route answering with `res.json`, three with `sendJsonText` (text, bytes, parts), with the same status and
 * ETag.
 */
function app(status: number) {
  const server = express();
  server.set('etag', false);
  server.all('/json', (_req, res) => {
    res.status(status).set('ETag', '"3"').json(value);
  });
  server.all('/text', (_req, res) => {
    sendJsonText(res.status(status).set('ETag', '"3"'), JSON.stringify(value));
  });
  server.all('/bytes', (_req, res) => {
    sendJsonText(res.status(status).set('ETag', '"3"'), Buffer.from(JSON.stringify(value)));
  });
  server.all('/parts', (_req, res) => {
    // Split inside a character's UTF-8 bytes too: the parts are bytes, sent as they are.
    const bytes = Buffer.from(JSON.stringify(value));
    const cuts = [0, 1, bytes.indexOf('ï') + 1, bytes.length - 1, bytes.length];
    const parts = cuts.slice(1).map((end, index) => bytes.subarray(cuts[index], end));
    sendJsonText(res.status(status).set('ETag', '"3"'), parts);
  });
  return server;
}

const HEADERS = ['content-type', 'content-length', 'etag'] as const;
const headersOf = (response: request.Response) =>
  Object.fromEntries(HEADERS.map((name) => [name, response.headers[name]]));

describe('sendJsonText', () => {
  it.each([
    ['GET', 200, {}],
    ['POST', 201, {}],
    ['GET', 200, { 'If-None-Match': '"3"' }],
    ['GET', 200, { 'If-None-Match': '"2"' }],
    ['HEAD', 200, {}],
    ['DELETE', 204, {}],
  ] as const)('%s answering %i with %j sends what res.json sends', async (method, status, headers) => {
    const server = app(status);
    const send = (path: string) => {
      const call = request(server)[method.toLowerCase() as 'get'](path);
      for (const [name, headerValue] of Object.entries(headers)) call.set(name, headerValue);
      return call;
    };
    const expected = await send('/json');
    for (const actual of [await send('/text'), await send('/bytes'), await send('/parts')]) {
      expect(actual.status).toBe(expected.status);
      expect(headersOf(actual)).toEqual(headersOf(expected));
      expect(actual.text).toEqual(expected.text);
    }
  });

  it.each(['/text', '/bytes', '/parts'])(
    '%s: writes the body with its length in bytes, not characters',
    async (path) => {
      const response = await request(app(200)).get(path);
      expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(value)));
      expect(response.body).toEqual(value);
    },
  );
});
