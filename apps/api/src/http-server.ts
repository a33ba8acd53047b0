import { STATUS_CODES, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBase62 } from '@prior-auth/platform';
import type { Express } from 'express';
import { errorEnvelope } from './http/error-handler';

export interface RunningServer {
  server: Server;
  port: number;
  /**
   * Stops accepting connections, lets in-flight requests finish (up to `graceMs`, then cuts the rest), and
   * drops idle keep-alive sockets so clients do not hold the process open.
   */
  close(graceMs: number): Promise<void>;
}

export function listen(app: Express, port: number, host: string): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.keepAliveTimeout = 5_000;
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
