import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkDatabaseReadiness, isDatabaseReady, pingDatabase } from '@prior-auth/persistence-postgres';
import { randomBase62 } from '@prior-auth/platform';
import type { DataSource } from 'typeorm';
import type { WorkerMetrics } from './worker-metrics';

export interface WorkerHttpServerOptions {
  dataSource: DataSource;
  metrics: WorkerMetrics;
  /** Whether the process's browser runs (or can be started) now. */
  browserAvailable: () => Promise<boolean>;
  /** False once the worker is stopping: it takes no more jobs, so it is not ready. */
  accepting: () => boolean;
}

export interface RunningWorkerHttpServer {
  port: number;
  close(): Promise<void>;
}

const json = (status: number, body: unknown) => ({
  status,
  type: 'application/json; charset=utf-8',
  body: JSON.stringify(body),
});

/**
 * The worker's small HTTP port (WORKER_HTTP_PORT, docs/decisions/0034-operability.md): `/livez`, `/readyz`
 * (database reachable, schema current, browser available), `/health` and `/metrics`. GET only, no body read.
 */
export async function startWorkerHttpServer(
  options: WorkerHttpServerOptions,
  port: number,
  host: string,
): Promise<RunningWorkerHttpServer> {
  const answer = async (method: string, path: string, requestId: string) => {
    // The API's error envelope (docs/decisions/0023-http-conventions.md).
    const error = (status: number, code: string, message: string) =>
      json(status, { error: { code, message, retryable: false, details: {}, issues: [] }, requestId });
    if (!['/livez', '/readyz', '/health', '/metrics'].includes(path)) {
      return error(404, 'not_found', `No route matches ${method} ${path}.`);
    }
    if (method !== 'GET' && method !== 'HEAD') {
      return error(405, 'method_not_allowed', `${method} is not allowed on ${path}.`);
    }
    if (path === '/livez') return json(200, { status: 'ok' });
    if (path === '/health') {
      const up = await pingDatabase(options.dataSource);
      return json(up ? 200 : 503, {
        status: up ? 'ok' : 'degraded',
        checks: { database: up ? 'up' : 'down' },
      });
    }
    if (path === '/readyz') {
      const [database, browser] = await Promise.all([
        checkDatabaseReadiness(options.dataSource),
        options.browserAvailable(),
      ]);
      const ready = isDatabaseReady(database) && browser && options.accepting();
      return json(ready ? 200 : 503, {
        status: ready ? 'ready' : 'not_ready',
        checks: {
          ...database,
          browser: browser ? 'available' : 'unavailable',
          accepting: options.accepting(),
        },
      });
    }
    return {
      status: 200,
      type: options.metrics.registry.contentType,
      body: await options.metrics.render(),
    };
  };

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://worker').pathname;
    const requestId = `req_${randomBase62(20)}`;
    answer(req.method ?? 'GET', path, requestId).then(
      (response) => {
        res.setHeader('Request-Id', requestId);
        res.statusCode = response.status;
        res.setHeader('Content-Type', response.type);
        res.setHeader('Cache-Control', 'no-store');
        if (response.status === 503) res.setHeader('Retry-After', '1');
        if (response.status === 405) res.setHeader('Allow', 'GET, HEAD');
        res.end(req.method === 'HEAD' ? undefined : response.body);
      },
      () => {
        res.statusCode = 500;
        res.end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
