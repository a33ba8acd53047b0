import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { portalRoutes } from './portal.routes';
import { notFoundPage } from './portal.views';
import { DEMO_ACCOUNT, LOCKED_ACCOUNT, SandboxStore, type SandboxAccount } from './sandbox-store';

export interface PayerSandboxOptions {
  databaseUrl: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** How long after receipt the payer decides (default 2 s). */
  decisionDelayMs?: number;
  /** How many times a `portal_down` request answers 503 before the portal recovers (default 2). */
  portalDownResponses?: number;
  /** Idle time after which a session is signed out (default 30 minutes). */
  sessionIdleMs?: number;
  /** Serves the sign-in page with renamed fields, as after a payer's redesign (tests of a changed page). */
  redesigned?: boolean;
  /**
   * `reusable` (the default): a one-time code signs a user in again within its step, so concurrent sign-ins of
   * one account never queue for codes; `once`: only once, as a real portal's may, to exercise the automation's
   * wait for the next code (docs/decisions/0043-page-scripts-load-nothing-mid-run.md).
   */
  oneTimeCodes?: 'once' | 'reusable';
  /** Accounts besides the demo and locked ones. */
  accounts?: SandboxAccount[];
  now?: () => Date;
}

export interface RunningPayerSandbox {
  url: string;
  port: number;
  /** Requests submitted under a reference, by anyone: proves "exactly one submission". */
  submissionCount(externalKey: string): Promise<number>;
  /** Times the portal refused a submission under a reference (the `failed` scenario). */
  rejectionCount(externalKey: string): Promise<number>;
  close(): Promise<void>;
}

/** Starts the simulated payer website (schema created on first start) and answers once it listens. */
export async function startPayerSandbox(options: PayerSandboxOptions): Promise<RunningPayerSandbox> {
  const store = await SandboxStore.open(options.databaseUrl, [
    DEMO_ACCOUNT,
    LOCKED_ACCOUNT,
    ...(options.accounts ?? []),
  ]);
  const app = express();
  app.disable('x-powered-by');
  app.use(
    portalRoutes({
      store,
      decisionDelayMs: options.decisionDelayMs ?? 2_000,
      portalDownResponses: options.portalDownResponses ?? 2,
      sessionIdleMs: options.sessionIdleMs ?? 30 * 60_000,
      redesigned: options.redesigned ?? false,
      reusableCodes: options.oneTimeCodes !== 'once',
      now: options.now ?? (() => new Date()),
    }),
  );
  app.use((_req: Request, res: Response) => {
    res.status(404).type('html').send(notFoundPage());
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    console.error('payer sandbox error', error);
    res
      .status(500)
      .type('html')
      .send('<!doctype html><body data-page="error"><h1>Something went wrong</h1></body>');
  });
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const listening = app.listen(options.port ?? 0, options.host ?? '127.0.0.1', (error?: Error) =>
        error ? reject(error) : resolve(listening),
      );
      listening.once('error', reject);
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const host = options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1';
  return {
    url: `http://${host}:${port}`,
    port,
    submissionCount: (key) => store.submissionCount(key),
    rejectionCount: (key) => store.faultCount(key, 'rejected'),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}
