import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

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
