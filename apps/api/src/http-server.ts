import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { BLOB_UPLOAD_ROUTE } from '@prior-auth/blob-storage';
import { loadConfig, randomBase62, type AppConfig } from '@prior-auth/platform';
import type { Express } from 'express';
import { errorEnvelope } from './http/error-handler';
import { createExpressServer } from './http/express-server';

export interface RunningServer {
  server: Server;
  port: number;
  /**
   * Stops accepting connections, lets in-flight requests finish (up to `graceMs`, then cuts the rest), and
   * drops idle keep-alive sockets so clients do not hold the process open.
   */
  close(graceMs: number): Promise<void>;
}

/*
 * How long a request may take to arrive (Node's default `requestTimeout` is 300 s, its `headersTimeout` 60 s).
 *
 * - JSON requests (every route but the file-bytes upload): their bodies are at most REQUEST_BODY_LIMIT_BYTES
 *   (1 MiB by default, 10 MiB at most), so REQUEST_BODY_TIMEOUT_MS, 30 s by default, once the headers are in is
 *   ample (≥ 35 KiB/s for 1 MiB, ≥ 350 KiB/s for 10 MiB); a client that stops sending mid-body is answered 408
 *   instead of holding a socket and a body-parser for minutes.
 * - File bytes (`PUT /blobs/upload/:token`, up to MAX_FILE_SIZE_BYTES = 25 MiB) have UPLOAD_REQUEST_TIMEOUT_MS,
 *   300 s by default as Node's, for the whole request (≥ 85 KiB/s for 25 MiB): a shorter one would cut
 *   legitimate uploads on slow links. It is Node's server-wide bound, so it caps every request.
 * - Headers are a few KiB: 20 s (Node enforces both of its bounds on a 30 s sweep, so they fire up to 30 s late).
 *   The upload bound's minimum (30 s) keeps it above this one, as Node requires.
 */
export const HEADERS_TIMEOUT_MS = 20_000;

export interface ListenOptions {
  /** How long a request other than a file-bytes upload may take to arrive in full once its headers are in. */
  bodyTimeoutMs: number;
  /** How long any request, a file-bytes upload included, may take to arrive in full. */
  uploadTimeoutMs: number;
}

/** The server's bounds from the configuration (REQUEST_BODY_TIMEOUT_MS, UPLOAD_REQUEST_TIMEOUT_MS). */
export const listenOptions = (
  config: Pick<AppConfig, 'REQUEST_BODY_TIMEOUT_MS' | 'UPLOAD_REQUEST_TIMEOUT_MS'>,
): ListenOptions => ({
  bodyTimeoutMs: config.REQUEST_BODY_TIMEOUT_MS,
  uploadTimeoutMs: config.UPLOAD_REQUEST_TIMEOUT_MS,
});

export function listen(
  app: Express,
  port: number,
  host: string,
  options: Partial<ListenOptions> = {},
): Promise<RunningServer> {
  const { bodyTimeoutMs, uploadTimeoutMs } = { ...listenOptions(loadConfig({})), ...options };
  return new Promise((resolve, reject) => {
    const server = createExpressServer(app).listen(port, host);
    server.keepAliveTimeout = 5_000;
    server.requestTimeout = uploadTimeoutMs;
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.on('request', bodyDeadline(bodyTimeoutMs));
    server.on('clientError', answerClientError);
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address() as AddressInfo;
      resolve({
        server,
        port: address.port,
        close: async (graceMs: number) => {
          const closed = new Promise<void>((done) => server.close(() => done()));
          server.closeIdleConnections();
          const grace = setTimeout(() => server.closeAllConnections(), graceMs);
          // An in-flight request on a keep-alive socket leaves that socket idle once answered.
          const sweep = setInterval(() => server.closeIdleConnections(), 100);
          try {
            await closed;
          } finally {
            clearTimeout(grace);
            clearInterval(sweep);
          }
        },
      });
    });
  });
}

const UPLOAD_PATH_PREFIX = BLOB_UPLOAD_ROUTE.slice(0, BLOB_UPLOAD_ROUTE.indexOf(':')).toLowerCase();

/** `PUT /blobs/upload/:token` (Express matches paths case-insensitively). */
const isFileBytesUpload = (req: IncomingMessage): boolean =>
  req.method === 'PUT' && (req.url ?? '').toLowerCase().startsWith(UPLOAD_PATH_PREFIX);

/**
 * Answers 408 request_timeout, and closes the connection, when a request (other than a file-bytes upload) has
 * not arrived in full `timeoutMs` after its headers: the shorter bound Node's server-wide `requestTimeout`
 * cannot give per route. The answer goes through the response the app holds (its Request-Id and headers, the
 * access log); the body-parser still waiting then sees the request aborted, which is not answered again.
 */
function bodyDeadline(timeoutMs: number): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.complete || isFileBytesUpload(req)) return;
    const timer = setTimeout(() => {
      if (req.complete || res.headersSent || !res.writable) return;
      const requestId = String(res.getHeader('Request-Id') ?? `req_${randomBase62(20)}`);
      const body = JSON.stringify(
        errorEnvelope(requestId, 'request_timeout', 'The request was not received in time.'),
      );
      res.statusCode = 408;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', Buffer.byteLength(body));
      res.setHeader('Request-Id', requestId);
      res.setHeader('Connection', 'close');
      // The rest of the body will not be read: the connection goes once the answer is written.
      res.once('finish', () => req.socket.destroySoon());
      res.end(body);
    }, timeoutMs);
    res.once('close', () => clearTimeout(timer));
  };
}

/** Node's own refusals of a request it could not parse, as `[status, code, message]` of the error envelope. */
function clientErrorAnswer(code: string | undefined): [number, string, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'headers_too_large', 'The request headers are too large.'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [408, 'request_timeout', 'The request was not received in time.'];
  return [400, 'bad_request', 'The request is not valid HTTP.'];
}

/**
 * Requests Node refuses before Express sees them (oversized headers, malformed HTTP, a request that took too
 * long) get the error envelope instead of Node's bare status line (decision 0023;
 * docs/decisions/0015-hostile-input-and-outages.md). The connection is closed afterwards: its framing is lost.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // Nothing to answer on a connection the client already dropped, or one already answering a request.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, message] = clientErrorAnswer(error.code);
  const requestId = `req_${randomBase62(20)}`;
  const body = JSON.stringify(errorEnvelope(requestId, code, message));
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `Request-Id: ${requestId}`,
      'Cache-Control: no-store',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
