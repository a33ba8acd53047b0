import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  RESPONSE_EXCERPT_BYTES,
  WebhookSender,
  type WebhookSendRequest,
} from '../src/webhooks/webhook-sender';

/* The send of one delivery against a real HTTP receiver on localhost (docs/decisions/0031-events-and-webhooks.md). */

const SECRET = `whsec_${Buffer.from('a'.repeat(32)).toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.from('b'.repeat(32)).toString('base64')}`;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let base: string;
let received: Received[];
let answer: (path: string) => { status: number; headers?: Record<string, string>; body?: string };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const { status, headers, body } = answer(path);
      res.writeHead(status, headers);
      res.end(body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received = [];
  answer = () => ({ status: 204 });
});

const localResolver = { resolve: async () => ['127.0.0.1'] };
const request = (overrides: Partial<WebhookSendRequest> = {}): WebhookSendRequest => ({
  url: `${base}/hook`,
  environment: 'sandbox',
  messageId: 'evt_1',
  body: JSON.stringify({ id: 'evt_1', type: 'authorization.created' }),
  secrets: [SECRET],
  now: new Date(),
  ...overrides,
});

it('signs per Standard Webhooks: the receiver verifies with either secret during a rotation', async () => {
  const result = await new WebhookSender(localResolver).send(request({ secrets: [SECRET, OLD_SECRET] }));

  expect(result).toMatchObject({ ok: true, statusCode: 204, error: null });
  const [delivery] = received;
  expect(delivery!.headers['webhook-id']).toBe('evt_1');
  expect(delivery!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
  const headers = {
    'webhook-id': String(delivery!.headers['webhook-id']),
    'webhook-timestamp': String(delivery!.headers['webhook-timestamp']),
    'webhook-signature': String(delivery!.headers['webhook-signature']),
  };
  for (const secret of [SECRET, OLD_SECRET]) {
    expect(new Webhook(secret).verify(delivery!.body, headers)).toEqual(JSON.parse(delivery!.body));
  }
  const stranger = `whsec_${Buffer.from('c'.repeat(32)).toString('base64')}`;
  expect(() => new Webhook(stranger).verify(delivery!.body, headers)).toThrow();
});

it('does not follow a redirect: a 3xx is a failure and the target is never asked', async () => {
  answer = (path) =>
    path === '/hook' ? { status: 302, headers: { location: `${base}/elsewhere` } } : { status: 200 };

  const result = await new WebhookSender(localResolver).send(request());

  expect(result).toMatchObject({ ok: false, statusCode: 302, error: 'redirect not followed (302)' });
  expect(received.map((r) => r.path)).toEqual(['/hook']);
});

it('keeps at most 4 KiB of the answer, and records a 500 with its excerpt', async () => {
  answer = () => ({ status: 500, body: 'x'.repeat(100_000) });

  const result = await new WebhookSender(localResolver).send(request());

  expect(result.ok).toBe(false);
  expect(result.statusCode).toBe(500);
  expect(result.responseExcerpt).toHaveLength(RESPONSE_EXCERPT_BYTES);
  expect(result.error).toBe('status 500');
});

it('gives up on a receiver that does not answer within the timeout', async () => {
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const port = (silent.address() as AddressInfo).port;
    const result = await new WebhookSender(localResolver, 200).send(
      request({ url: `http://127.0.0.1:${port}/` }),
    );
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timeout after 200 ms' });
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

it('refuses at send time a production URL whose name now resolves to 127.0.0.1', async () => {
  const rebound = { resolve: async () => ['127.0.0.1'] };

  const result = await new WebhookSender(rebound).send(
    request({ url: 'https://hooks.example.com/receive', environment: 'production' }),
  );

  expect(result.ok).toBe(false);
  expect(result.statusCode).toBeNull();
  expect(result.error).toMatch(/^refused: .*loopback, private or link-local/);
  expect(received).toEqual([]);
});

it('refuses production http and private literals before connecting', async () => {
  const sender = new WebhookSender({ resolve: async () => ['93.184.216.34'] });
  for (const url of ['http://hooks.example.com/', 'https://10.0.0.1/', 'https://169.254.169.254/']) {
    const result = await sender.send(request({ url, environment: 'production' }));
    expect(result.error).toMatch(/^refused: /);
  }
  expect(received).toEqual([]);
});
