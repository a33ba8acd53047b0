import { connect, type Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createLogger, loadConfig } from '@prior-auth/platform';
import type { Request, Response } from 'express';
import request from 'supertest';
import { DatabaseOutageTracker } from '../src/http/database-outage-tracker';
import { errorHandler, toErrorResponse } from '../src/http/error-handler';
import { setRequestContext } from '../src/http/request-context';
import { listen, listenOptions, type RunningServer } from '../src/http-server';
import { FILES, fileClient, pdfFile, PDF_BYTES, pathOf } from './file-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * Bodies the JSON parser cannot read: one that does not decompress is the client's fault (400 bad_request, not a
 * 500), one the client stopped sending is neither answered nor taken for a database outage (its error carries
 * `code: 'ECONNABORTED'`, a connection code the database classifier knows too), and one that never arrives in
 * full is cut after a bound instead of holding the connection for Node's default five minutes.
 */

/** Polls observable state (never a fixed sleep) until `ready` holds; fails after `timeoutMs`. */
async function waitFor(what: string, ready: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  status?: number;
  err?: { message?: string };
}

/** Opens a raw connection and writes `head` (and `body`, if any) without ending it. */
function rawSocket(port: number, head: string, body: Buffer | string = '') {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  const open = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  void open.then(() => {
    socket.write(head);
    if (body.length > 0) socket.write(body);
  });
  return {
    socket: socket as Socket,
    open,
    text: () => text,
    closed: () => closed,
  };
}

/** superagent would send a Buffer given with Content-Type: application/json as JSON of its bytes. */
const asIs = (body: Buffer) => body as unknown as string;

const parseRaw = (text: string) => {
  const [head, body] = text.split('\r\n\r\n');
  return { statusLine: head!.split('\r\n')[0], head: head!, body: JSON.parse(body!) };
};

describe('request bodies the API cannot read', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let auth: { Authorization: string };
  const logLines: string[] = [];
  const logs = () => logLines.map((line) => JSON.parse(line) as LogLine);

  beforeAll(async () => {
    t = await createTestApp({ logLines });
    tenant = await t.createTenant();
    auth = { Authorization: `Bearer ${tenant.keys.sandbox}` };
  });
  afterAll(() => t.close());

  describe('a body that does not decompress', () => {
    const json = Buffer.from(JSON.stringify(pdfFile()));
    const gzipped = gzipSync(json);
    it.each([
      ['gzip', Buffer.from('garbage')],
      ['deflate', Buffer.from('garbage')],
      ['br', Buffer.from('garbage')],
      ['GZIP', Buffer.from('garbage')],
      ['gzip', gzipped.subarray(0, gzipped.length - 10)],
      ['deflate', deflateSync(json).subarray(0, 10)],
      ['br', brotliCompressSync(json).subarray(0, 8)],
    ])(
      'Content-Encoding: %s with a broken stream → 400 bad_request, not retryable',
      async (encoding, body) => {
        const res = await request(t.app)
          .post(FILES)
          .set(auth)
          .set('Content-Type', 'application/json')
          .set('Content-Encoding', encoding)
          .serialize(asIs)
          .send(body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: {
            code: 'bad_request',
            message: expect.any(String),
            retryable: false,
            details: {},
            issues: [],
          },
          requestId: res.headers['request-id'],
        });
        expect(logs().filter((line) => line.level >= 50 && line.requestId === res.body.requestId)).toEqual(
          [],
        );
      },
    );

    it('still reads a body that decompresses', async () => {
      const res = await request(t.app)
        .post(FILES)
        .set(auth)
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .serialize(asIs)
        .send(gzipped);
      expect(res.status).toBe(201);
    });
  });

  describe('the error handler', () => {
    const silent = createLogger({ name: 'test', level: 'silent' });

    it('answers zlib errors wrapped by body-parser as 400 and internal errors that look alike as 500', () => {
      const zlibError = Object.assign(new Error('incorrect header check'), {
        errno: -3,
        code: 'Z_DATA_ERROR',
        expose: true,
        status: 400,
        statusCode: 400,
      });
      expect(toErrorResponse(zlibError, 'req_1').status).toBe(400);
      // The same zlib error raised by our own code (not wrapped by the body parser) is an internal error.
      const internal = Object.assign(new Error('incorrect header check'), {
        errno: -3,
        code: 'Z_DATA_ERROR',
      });
      expect(toErrorResponse(internal, 'req_1').status).toBe(500);
      expect(toErrorResponse(Object.assign(new Error('x'), { status: 400 }), 'req_1').status).toBe(500);
    });

    it.each([
      ['request aborted', { code: 'ECONNABORTED', type: 'request.aborted' }],
      ['aborted', { code: 'ECONNRESET' }],
      ['request size did not match content length', { type: 'request.size.invalid' }],
      ['unexpected end of file', { code: 'Z_BUF_ERROR', errno: -5 }],
    ])('never counts the body error "%s" as a database outage', (message, fields) => {
      const error = Object.assign(new Error(message), fields, { expose: true, status: 400, statusCode: 400 });
      const outage = new DatabaseOutageTracker(silent);
      const refused = jest.spyOn(outage, 'refused');
      const res = {
        headersSent: false,
        status: jest.fn().mockReturnThis(),
        set: jest.fn().mockReturnThis(),
        json: jest.fn().mockReturnThis(),
      };
      const req = {} as Request;
      setRequestContext(req, { requestId: 'req_1', startedAt: process.hrtime.bigint() });
      errorHandler(silent, outage)(error, req, res as unknown as Response, () => undefined);
      expect(refused).not.toHaveBeenCalled();
      expect(outage.inOutage).toBe(false);
    });

    it('still counts a database connection abort as an outage', () => {
      const error = Object.assign(new Error('read ECONNABORTED'), { code: 'ECONNABORTED' });
      expect(toErrorResponse(error, 'req_1').body.error.code).toBe('service_unavailable');
    });
  });

  describe('over a real socket', () => {
    let running: RunningServer;
    const BODY_TIMEOUT_MS = 300;
    beforeAll(async () => {
      running = await listen(t.api, 0, '127.0.0.1', { bodyTimeoutMs: BODY_TIMEOUT_MS });
    });
    afterAll(() => running.close(1_000));

    /** A POST announcing 100 bytes of body that sends only the first 12. */
    const partialPost = (path: string, requestId: string, port = running.port) =>
      rawSocket(
        port,
        [
          `POST ${path} HTTP/1.1`,
          'Host: x',
          `Authorization: ${auth.Authorization}`,
          'Content-Type: application/json',
          'Content-Length: 100',
          `X-Request-Id: ${requestId}`,
          '',
          '',
        ].join('\r\n'),
        '{"fileName":',
      );

    it('does not take a client that aborts mid-body for a database outage, nor log it at warn or error', async () => {
      const requestId = `abort-${Date.now()}`;
      const client = partialPost(FILES, requestId);
      await client.open;
      client.socket.end();
      // Either the abort is noted, or (the defect) the database is declared down.
      await waitFor('the abort to be handled', () =>
        logs().some(
          (line) =>
            (line.requestId === requestId && line.msg.includes('before its body arrived')) ||
            line.msg.startsWith('database unavailable'),
        ),
      );
      const mine = logs().filter(
        (line) => line.requestId === requestId || line.err?.message === 'request aborted',
      );
      expect(mine.filter((line) => line.level >= 40)).toEqual([]);
      expect(logs().filter((line) => line.msg.startsWith('database unavailable'))).toEqual([]);
    });

    it('answers a body that never arrives in full with 408 request_timeout once the bound has passed', async () => {
      const requestId = `stall-${Date.now()}`;
      const client = partialPost(FILES, requestId);
      await waitFor('the server to answer and close', client.closed);
      const { statusLine, head, body } = parseRaw(client.text());
      expect(statusLine).toBe('HTTP/1.1 408 Request Timeout');
      expect(head).toMatch(/\r\nConnection: close\r\n/i);
      expect(head).toContain(`\r\nRequest-Id: ${requestId}\r\n`);
      expect(body).toEqual({
        error: {
          code: 'request_timeout',
          message: expect.any(String),
          retryable: false,
          details: {},
          issues: [],
        },
        requestId,
      });
      expect(logs().filter((line) => line.msg.startsWith('database unavailable'))).toEqual([]);
      expect(logs().filter((line) => line.requestId === requestId && line.level >= 40)).toEqual([]);
    });

    it('takes both bounds from the configuration', async () => {
      const configured = await listen(
        t.api,
        0,
        '127.0.0.1',
        listenOptions(loadConfig({ REQUEST_BODY_TIMEOUT_MS: '1000', UPLOAD_REQUEST_TIMEOUT_MS: '45000' })),
      );
      try {
        expect(configured.server.requestTimeout).toBe(45_000);
        expect(running.server.requestTimeout).toBe(loadConfig({}).UPLOAD_REQUEST_TIMEOUT_MS);
        const requestId = `stall-configured-${Date.now()}`;
        const started = Date.now();
        const client = partialPost(FILES, requestId, configured.port);
        await waitFor('the server to answer and close', client.closed);
        expect(parseRaw(client.text()).statusLine).toBe('HTTP/1.1 408 Request Timeout');
        // Cut by the configured second, not by the default 30 s nor the test's 300 ms.
        expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      } finally {
        await configured.close(1_000);
      }
    });

    it('does not cut a file-bytes upload at the JSON bound', async () => {
      const files = fileClient(t.app, tenant.keys.sandbox);
      const created = await files.create(pdfFile()).expect(201);
      const half = Math.floor(PDF_BYTES.length / 2);
      const upload = rawSocket(
        running.port,
        [
          `PUT ${pathOf(created.body.uploadUrl)} HTTP/1.1`,
          'Host: x',
          'Content-Type: application/pdf',
          `Content-Length: ${PDF_BYTES.length}`,
          'Connection: close',
          '',
          '',
        ].join('\r\n'),
        PDF_BYTES.subarray(0, half),
      );
      await upload.open;
      // A JSON request sent after the upload started is cut first: the bound has passed for the upload too.
      const stalled = partialPost(FILES, `stall-after-upload-${Date.now()}`);
      await waitFor('the JSON request to be cut', stalled.closed);
      expect(upload.closed()).toBe(false);
      expect(upload.text()).toBe('');
      upload.socket.write(PDF_BYTES.subarray(half));
      await waitFor('the upload to be answered', upload.closed);
      expect(parseRaw(upload.text()).statusLine).toBe('HTTP/1.1 200 OK');
    });
  });
});
