import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type TenantScope } from '@prior-auth/domain';
import { TokenSigner } from '@prior-auth/platform';
import { SandboxRuntimeSessions } from './sandbox-runtime-sessions';
import { SandboxSessionPage, sandboxManualReferenceNumber } from './sandbox-session-page';
import { MemoryRuntimeSessionLedger } from './testing/memory-runtime-session-ledger';

const SCOPE: TenantScope = { organizationId: 'org_1', environment: 'sandbox' };
const T0 = new Date('2026-03-02T09:00:00.000Z');
const GRANT_MS = 5 * 60_000;
const signer = new TokenSigner('p'.repeat(32));

let now: Date;
let ledger: MemoryRuntimeSessionLedger;
let sessions: SandboxRuntimeSessions;
let errors: unknown[];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    // Mounted as the API will: only the session route reaches the page.
    if (!req.url?.startsWith('/sandbox-portal/sessions/')) {
      res.writeHead(404).end();
      return;
    }
    void page().handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const page = () =>
  new SandboxSessionPage({
    ledger,
    signer,
    clock: { now: () => new Date(now) },
    onError: (e) => errors.push(e),
  });

beforeEach(() => {
  now = new Date(T0);
  ledger = new MemoryRuntimeSessionLedger();
  errors = [];
  let counter = 0;
  sessions = new SandboxRuntimeSessions({
    ledger,
    signer,
    baseUrl,
    clock: { now: () => new Date(now) },
    ids: { newId: (prefix) => `${prefix}_${(counter += 1)}` },
  });
});

/** A live session for `authorizationId` and the URL an opened grant of `access` would redirect to. */
async function sessionUrl(
  access: 'interactive' | 'read_only',
  authorizationId = 'auth_1',
): Promise<{ url: string; sessionId: string }> {
  const { sessionId } = await sessions.provision(SCOPE, authorizationId);
  const url = await sessions.accessUrl(sessionId, access, new Date(now.getTime() + GRANT_MS));
  if (url === null) throw new Error('no access URL');
  return { url, sessionId };
}

const submit = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });

/** Changes one character of the signature (not the last, whose low bits are base64 padding). */
const tampered = (url: string): string => {
  const at = url.lastIndexOf('.') + 3;
  return url.slice(0, at) + (url[at] === 'A' ? 'B' : 'A') + url.slice(at + 1);
};

const expectStrictHeaders = (response: Response) => {
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  const csp = response.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("form-action 'self'");
  expect(csp).not.toContain('unsafe');
};

describe('SandboxSessionPage', () => {
  it('interactive: shows the session and authorization with a form that submits to the payer', async () => {
    const { url, sessionId } = await sessionUrl('interactive');
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expectStrictHeaders(response);
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toMatch(/<title>[^<]*Sandbox payer portal<\/title>/);
    expect(html).toContain('<h1>Sandbox payer portal</h1>');
    expect(html).toContain(`<dd>${sessionId}</dd>`);
    expect(html).toContain('<dd>auth_1</dd>');
    expect(html).toContain('<form method="post">');
    expect(html).toContain('<button type="submit">Submit request to payer</button>');
    expect(html).not.toContain('Read-only live view');
    expect(html).not.toMatch(/<script|<link|<img|src=|href=/i);
  });

  it('applies its stylesheet only through the hash the Content-Security-Policy allows', async () => {
    const response = await fetch((await sessionUrl('interactive')).url);
    const csp = response.headers.get('content-security-policy') ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(await response.text())?.[1] ?? '';
    const hash = createHash('sha256').update(style, 'utf8').digest('base64');
    expect(csp).toContain(`style-src 'sha256-${hash}'`);
  });

  it('interactive POST: shows the payer reference number, the same on every submission', async () => {
    const { url } = await sessionUrl('interactive', 'auth_42');
    const response = await submit(url);
    expect(response.status).toBe(200);
    expectStrictHeaders(response);
    const html = await response.text();
    const reference = sandboxManualReferenceNumber('auth_42');
    expect(html).toContain('Request received by the payer');
    expect(html).toContain(`<span class="reference" id="reference-number">${reference}</span>`);
    expect(html).not.toContain('<form');
    expect(await (await submit(url)).text()).toContain(reference);
  });

  it('read-only: a live-view banner, no form, and a submission is refused', async () => {
    const { url, sessionId } = await sessionUrl('read_only');
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expectStrictHeaders(response);
    const html = await response.text();
    expect(html).toContain('<strong>Read-only live view.</strong>');
    expect(html).toContain(`<dd>${sessionId}</dd>`);
    expect(html).not.toContain('<form');
    expect(html).not.toContain('<button');

    const refused = await submit(url);
    expect(refused.status).toBe(403);
    expectStrictHeaders(refused);
    const refusal = await refused.text();
    expect(refusal).toContain('read-only live view');
    expect(refusal).not.toContain(sandboxManualReferenceNumber('auth_1'));
  });

  it('refuses a tampered token with 403, also one that claims more access', async () => {
    const { url } = await sessionUrl('read_only');
    const response = await fetch(tampered(url));
    expect(response.status).toBe(403);
    expectStrictHeaders(response);
    expect(await response.text()).toContain('not valid');

    const token = url.slice(url.lastIndexOf('/') + 1);
    const [body, mac] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...claims, access: 'interactive' })).toString('base64url');
    const upgraded = await submit(`${url.slice(0, url.lastIndexOf('/') + 1)}${forged}.${mac}`);
    expect(upgraded.status).toBe(403);
    expect(await upgraded.text()).not.toContain(sandboxManualReferenceNumber('auth_1'));

    expect((await fetch(`${baseUrl}/sandbox-portal/sessions/not-a-token`)).status).toBe(403);
  });

  it('answers 410 once the token has expired', async () => {
    const { url } = await sessionUrl('interactive');
    now = new Date(T0.getTime() + GRANT_MS);
    const response = await fetch(url);
    expect(response.status).toBe(410);
    expectStrictHeaders(response);
    expect(await response.text()).toContain('expired');
    expect((await submit(url)).status).toBe(410);
  });

  it('answers 410 once the session has ended', async () => {
    const { url, sessionId } = await sessionUrl('interactive');
    await sessions.release(sessionId);
    const response = await fetch(url);
    expect(response.status).toBe(410);
    expectStrictHeaders(response);
    const html = await response.text();
    expect(html).toContain('Session ended');
    expect(html).not.toContain('auth_1');
    expect((await submit(url)).status).toBe(410);
  });

  it('answers 404 for a validly signed token naming no session', async () => {
    const { url, sessionId } = await sessionUrl('interactive');
    ledger.rows.delete(sessionId);
    expect((await fetch(url)).status).toBe(404);
  });

  it('escapes the authorization id', async () => {
    const hostile = 'auth_<script>alert("x")</script>&\'';
    const { url } = await sessionUrl('interactive', hostile);
    const html = await (await fetch(url)).text();
    expect(html).not.toContain('<script>');
    expect(html).toContain('<dd>auth_&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</dd>');
    const posted = await (await submit(url)).text();
    expect(posted).not.toContain('<script>');
    expect(posted).toContain(sandboxManualReferenceNumber(hostile));
  });

  it('answers HEAD without a body and refuses other methods with 405', async () => {
    const { url } = await sessionUrl('interactive');
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expectStrictHeaders(head);
    expect(await head.text()).toBe('');

    const put = await fetch(url, { method: 'PUT', body: 'x' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('refuses a submission far larger than the form', async () => {
    const { url } = await sessionUrl('interactive');
    const response = await fetch(url, { method: 'POST', body: 'x'.repeat(64 * 1024) });
    expect(response.status).toBe(413);
    expect(await response.text()).not.toContain(sandboxManualReferenceNumber('auth_1'));
  });

  it('answers 503 when the sessions cannot be read, and reports why', async () => {
    const { url } = await sessionUrl('interactive');
    const outage = new Error('database gone');
    ledger.find = () => Promise.reject(outage);
    const response = await fetch(url);
    expect(response.status).toBe(503);
    expectStrictHeaders(response);
    expect(await response.text()).not.toContain('database gone');
    expect(errors).toEqual([outage]);
  });
});
