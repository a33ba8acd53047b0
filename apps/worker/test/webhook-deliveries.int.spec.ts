import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { AddressInfo } from 'node:net';
import { WebhookEndpointUseCases } from '@prior-auth/domain';
import { JOB_TABLE, KeysetCursors, PostgresWebhookDeliveries } from '@prior-auth/persistence-postgres';
import {
  AesGcmWebhookSecretVault,
  CURRENT_API_VERSION,
  LEGACY_API_VERSION,
  RandomIdGenerator,
  TokenSigner,
  type ApiVersion,
} from '@prior-auth/platform';
import { LEGACY_STATUS_OF } from '@prior-auth/presentation';
import { Webhook } from 'standardwebhooks';
import { Harness, TEST_SIGNING_SECRET } from './support/harness';
import { PayerWebsite } from './support/payer-website';

/*
 * Webhook deliveries end to end (docs/decisions/0031-events-and-webhooks.md): events fan out to a real HTTP
 * receiver on localhost in the events' transaction, an in-process worker signs and sends them, failed sends
 * are retried with the same webhook-id, and every attempt is recorded.
 */

interface Received {
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

let h: Harness;
/** The sandbox payer: the simulated website through the browser (decision 0022), one per file. */
let website: PayerWebsite;
let server: Server;
let url: string;
let received: Received[];
let statuses: number[];
/** While set, requests are held unanswered (a worker is killed in the middle of a send). */
let holding: ServerResponse[] | null = null;
let child: ChildProcess | null = null;

beforeAll(async () => {
  website = await PayerWebsite.start();
});
afterAll(async () => {
  await website?.close();
});

beforeEach(async () => {
  h = await Harness.open();
  received = [];
  statuses = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (holding !== null) {
        holding.push(res);
        return;
      }
      res.writeHead(statuses.shift() ?? 200);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});
afterEach(async () => {
  if (child !== null && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = null;
  holding = null;
  server.closeAllConnections();
  await h.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function createEndpoint(
  enabledEvents: string[],
  apiVersion: ApiVersion = CURRENT_API_VERSION,
  path = '/hooks',
): Promise<{ id: string; secret: string }> {
  const useCases = new WebhookEndpointUseCases({
    unitOfWork: h.unitOfWork,
    clock: { now: () => new Date() },
    ids: new RandomIdGenerator(),
    secrets: new AesGcmWebhookSecretVault(TEST_SIGNING_SECRET),
    hostResolver: { resolve: async () => ['127.0.0.1'] },
  });
  const { endpoint, secret } = await useCases.create(h.scope, {
    url: url.replace('/hooks', path),
    enabledEvents,
    description: null,
    apiVersion,
  });
  return { id: endpoint.id, secret };
}

interface DeliveryRow {
  id: string;
  event_id: string;
  status: string;
  attempt_count: number;
}

const deliveries = (endpointId: string): Promise<DeliveryRow[]> =>
  h.dataSource.query(
    `SELECT id, event_id, status, attempt_count FROM webhook_deliveries
     WHERE organization_id = $1 AND endpoint_id = $2 ORDER BY sequence`,
    [h.organizationId, endpointId],
  );

async function waitUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await read();
  }
  return last;
}

const verifyAll = (secret: string) =>
  received.map((r) =>
    new Webhook(secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    }),
  ) as Array<{
    id: string;
    type: string;
    authorizationId: string | null;
    data: { object: { status?: string } };
  }>;

it('delivers every event of a case driven to completed, signed, with status events in order', async () => {
  const endpoint = await createEndpoint(['*']);
  await h.startWorker({
    portal: website.portal(),
    webhooks: { retry: { orderWaitMs: 100 } },
  });

  const ready = await h.readyCase('W123456789');
  await h.confirm(ready.id);
  await h.waitForStatus(ready.id, 'completed');
  const rows = await waitUntil(
    () => deliveries(endpoint.id),
    (all) => all.length > 0 && all.every((d) => d.status === 'succeeded'),
    'every delivery to succeed',
  );

  const events: Array<{ id: string; type: string }> = await h.dataSource.query(
    `SELECT id, type FROM events WHERE organization_id = $1 AND authorization_id = $2 ORDER BY sequence`,
    [h.organizationId, ready.id],
  );
  // Every delivery arrived once, signed; the case's arrived in the order of its events (files, which belong
  // to no case, are not ordered with it).
  const bodies = verifyAll(endpoint.secret);
  expect(bodies.map((b) => b.id).sort()).toEqual(rows.map((d) => d.event_id).sort());
  expect(received.map((r) => r.headers['webhook-id'])).toEqual(bodies.map((b) => b.id));
  const caseBodies = bodies.filter((b) => b.authorizationId === ready.id);
  expect(caseBodies.map((b) => b.id)).toEqual(events.map((e) => e.id));
  const statusEvents = caseBodies
    .map((b) => b.type)
    .filter((type) => !['authorization.created', 'authorization.updated'].includes(type));
  expect(statusEvents).toEqual(
    events.map((e) => e.type).filter((t) => !['authorization.created', 'authorization.updated'].includes(t)),
  );
  expect(statusEvents.at(-1)).toBe('authorization.completed');
  expect(statusEvents).toContain('authorization.processing');
  expect(statusEvents.indexOf('authorization.processing')).toBeLessThan(
    statusEvents.indexOf('authorization.completed'),
  );
});

it('retries a receiver answering 500 twice: three sends with the same webhook-id, each attempt recorded', async () => {
  const endpoint = await createEndpoint(['authorization.created']);
  statuses = [500, 500, 200];
  await h.startWorker({ webhooks: { retry: { firstDelayMs: 100, maxDelayMs: 200 } } });

  await h.readyCase('W123456789');
  const [row] = await waitUntil(
    () => deliveries(endpoint.id),
    (all) => all[0]?.status === 'succeeded',
    'the delivery to succeed',
  );

  expect(received).toHaveLength(3);
  expect(new Set(received.map((r) => r.headers['webhook-id']))).toEqual(new Set([row!.event_id]));
  expect(verifyAll(endpoint.secret).map((b) => b.type)).toEqual(Array(3).fill('authorization.created'));
  const attempts: Array<{ attempt_number: number; status_code: number; error: string | null }> =
    await h.dataSource.query(
      `SELECT attempt_number, status_code, error FROM webhook_delivery_attempts
       WHERE organization_id = $1 AND delivery_id = $2 ORDER BY attempt_number`,
      [h.organizationId, row!.id],
    );
  expect(attempts).toEqual([
    { attempt_number: 1, status_code: 500, error: 'status 500' },
    { attempt_number: 2, status_code: 500, error: 'status 500' },
    { attempt_number: 3, status_code: 200, error: null },
  ]);
});

it('renders each delivery in its endpoint’s API version', async () => {
  const legacy = await createEndpoint(['authorization.created'], LEGACY_API_VERSION, '/legacy');
  const current = await createEndpoint(['authorization.created'], CURRENT_API_VERSION, '/current');
  await h.startWorker();

  const ready = await h.readyCase('W123456789');
  await waitUntil(
    async () => [...(await deliveries(legacy.id)), ...(await deliveries(current.id))],
    (all) => all.length === 2 && all.every((d) => d.status === 'succeeded'),
    'both deliveries to succeed',
  );
  const bodyAt = (path: string) => {
    const r = received.find((one) => one.path === path && one.body.includes(ready.id));
    return JSON.parse(r!.body) as { data: { object: { status: string } } };
  };
  const currentStatus = bodyAt('/current').data.object.status as keyof typeof LEGACY_STATUS_OF;
  expect(Object.keys(LEGACY_STATUS_OF)).toContain(currentStatus);
  expect(bodyAt('/legacy').data.object.status).toBe(LEGACY_STATUS_OF[currentStatus]);
  expect(bodyAt('/legacy').data.object.status).not.toBe(currentStatus);
});

it('sends a delivery once however many retries and workers race for it', async () => {
  const endpoint = await createEndpoint(['authorization.created']);
  statuses = [500];
  // Two workers; a failed attempt's follow-up waits 1 s, so it is still queued when the retries come.
  await h.startWorker({ webhooks: { retry: { firstDelayMs: 1_000, maxDelayMs: 1_000 } } });
  await h.startWorker({ webhooks: { retry: { firstDelayMs: 1_000, maxDelayMs: 1_000 } } });

  await h.readyCase('W123456789');
  const [failed] = await waitUntil(
    () => deliveries(endpoint.id),
    (all) => all[0]?.attempt_count === 1,
    'the first attempt to fail',
  );
  expect(failed!.status).toBe('pending');

  const api = new PostgresWebhookDeliveries(
    h.dataSource,
    new KeysetCursors(new TokenSigner(TEST_SIGNING_SECRET)),
    h.boss,
  );
  const retries = await Promise.all(
    Array.from({ length: 6 }, () => api.retry(h.scope, endpoint.id, failed!.id, new Date())),
  );
  expect(retries.every((view) => view?.status === 'pending')).toBe(true);

  await waitUntil(
    () => deliveries(endpoint.id),
    (all) => all[0]?.status === 'succeeded',
    'the delivery to succeed',
  );
  // Every job of the delivery has run (the stale ones sent nothing) before the sends are counted.
  await waitUntil(
    async () =>
      (
        await h.dataSource.query(
          `SELECT count(*)::int AS n FROM ${JOB_TABLE}
           WHERE data->>'deliveryId' = $1 AND state IN ('created', 'retry', 'active')`,
          [failed!.id],
        )
      )[0].n as number,
    (n) => n === 0,
    'no job of the delivery left',
  );
  expect(received).toHaveLength(2);
  const [row] = await deliveries(endpoint.id);
  expect(row!.attempt_count).toBe(2);
});

it('writes no delivery for an event the endpoint did not enable', async () => {
  const endpoint = await createEndpoint(['authorization.canceled']);
  await h.readyCase('W123456789');
  expect(await deliveries(endpoint.id)).toEqual([]);
});

it('gives up after the retry window and disables an endpoint failing that long, with an event telling so', async () => {
  const failing = await createEndpoint(['authorization.created']);
  await h.dataSource.query(`UPDATE webhook_endpoints SET url = $3 WHERE organization_id = $1 AND id = $2`, [
    h.organizationId,
    failing.id,
    url.replace('/hooks', '/failing'),
  ]);
  const watcher = await createEndpoint(['webhook_endpoint.disabled']);
  statuses = [500];
  // Windows of zero: the first failed attempt ends the delivery, and the endpoint has failed long enough.
  await h.startWorker({ webhooks: { retry: { retryWindowMs: 0, disableAfterMs: 0 } } });

  await h.readyCase('W123456789');
  const [given] = await waitUntil(
    () => deliveries(failing.id),
    (all) => all[0]?.status === 'failed',
    'the delivery to be given up',
  );
  expect(given!.attempt_count).toBe(1);
  const [endpoint]: Array<{ disabled: boolean; version: number }> = await h.dataSource.query(
    'SELECT disabled, version FROM webhook_endpoints WHERE organization_id = $1 AND id = $2',
    [h.organizationId, failing.id],
  );
  expect(endpoint).toEqual({ disabled: true, version: 2 });

  // The other endpoint is told, signed like any delivery.
  await waitUntil(
    () => deliveries(watcher.id),
    (all) => all[0]?.status === 'succeeded',
    'the disabled event to be delivered',
  );
  const told = received.filter((r) => r.headers['webhook-id'] !== given!.event_id);
  const [event] = told.map((r) =>
    new Webhook(watcher.secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    }),
  ) as Array<{ type: string; data: { object: { id: string; disabled: boolean; version: number } } }>;
  expect(event).toMatchObject({
    type: 'webhook_endpoint.disabled',
    data: { object: { id: failing.id, disabled: true, version: 2 } },
  });
  expect(JSON.stringify(event)).not.toContain('whsec_');
});

/** A real worker process (src/main.ts through tsx, as in crash-recovery.int.spec.ts), ready to be killed. */
function startWorkerProcess(): Promise<ChildProcess> {
  const output: string[] = [];
  const worker = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'src', 'main.ts')], {
    cwd: join(__dirname, '..'),
    env: {
      ...process.env,
      PRIOR_AUTH_DATA_DIR: mkdtempSync(join(tmpdir(), 'worker-webhooks-')),
      SIGNING_SECRET: TEST_SIGNING_SECRET,
      LOG_LEVEL: 'info',
      WORKER_CONCURRENCY: '2',
      WORKER_POLL_INTERVAL_MS: '50',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = worker;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output.join('\n')}`)), 30_000);
    for (const stream of [worker.stdout!, worker.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        output.push(line);
        if (line.includes('"worker ready"')) {
          clearTimeout(timer);
          resolve(worker);
        }
      });
    }
    worker.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output.join('\n')}`));
    });
  });
}

it('loses no event when the worker is killed with SIGKILL in the middle of deliveries', async () => {
  const endpoint = await createEndpoint(['authorization.created']);
  holding = [];
  const worker = await startWorkerProcess();
  const cases = [];
  for (let i = 0; i < 4; i += 1) cases.push(await h.readyCase(`W12345678${i}`));
  await waitUntil(
    async () => received.length,
    (n) => n > 0,
    'a send in flight',
  );
  worker.removeAllListeners('exit');
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGKILL');
  await exited;
  const held = holding;
  holding = null;
  for (const res of held) res.destroy();

  // Another worker takes over once the killed one's heartbeat lapsed (decision 0016).
  await h.startWorker();
  const rows = await waitUntil(
    () => deliveries(endpoint.id),
    (all) => all.length === cases.length && all.every((d) => d.status === 'succeeded'),
    'every delivery to succeed after the kill',
    80_000,
  );
  const bodies = verifyAll(endpoint.secret);
  expect(new Set(bodies.map((b) => b.id))).toEqual(new Set(rows.map((d) => d.event_id)));
  expect(new Set(bodies.map((b) => b.authorizationId))).toEqual(new Set(cases.map((c) => c.id)));
}, 120_000);
