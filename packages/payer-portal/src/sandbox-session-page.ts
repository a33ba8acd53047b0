import { createHash } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import {
  type Clock,
  type RuntimeSessionAccess,
  type RuntimeSessionLedger,
  type RuntimeSessionRecord,
} from '@prior-auth/domain';
import { escapeHtml, type TokenSigner } from '@prior-auth/platform';
import { SANDBOX_RUNTIME_PROVIDER } from './sandbox-runtime-sessions';
import { verifySandboxSessionToken } from './sandbox-session-token';

export interface SandboxSessionPageOptions {
  ledger: RuntimeSessionLedger;
  signer: TokenSigner;
  clock: Clock;
  /** Told about failures answered with a 503 page (a lost database, typically), for logging. */
  onError?: (error: unknown) => void;
}

/** The submission form's body is never used; anything larger than this is not the form. */
const MAX_FORM_BYTES = 16 * 1024;

const STYLE = [
  ':root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1b1f24;background:#f6f7f9}',
  'body{margin:0}',
  '.notice{margin:0;padding:.5rem 1rem;background:#1d3b6f;color:#fff;font-size:.9rem}',
  'header,main{max-width:44rem;margin:0 auto;padding:0 1rem}',
  'h1{font-size:1.6rem;margin:1.25rem 0 .25rem}',
  'h2{font-size:1.2rem;margin:1.5rem 0 .5rem}',
  '.banner{padding:.75rem 1rem;border:2px solid #8a5a00;background:#fff4d6;border-radius:4px}',
  '.receipt{padding:.75rem 1rem;border:2px solid #1e6b3a;background:#e8f6ed;border-radius:4px}',
  '.refusal{padding:.75rem 1rem;border:2px solid #a1262b;background:#fdecec;border-radius:4px}',
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}',
  'dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}',
  '.reference{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:1.4rem;font-weight:700;letter-spacing:.05em}',
  'button{font:inherit;font-weight:600;padding:.6rem 1.2rem;border:0;border-radius:4px;background:#1d3b6f;color:#fff;cursor:pointer}',
  'button:hover{background:#142b52}',
  'button:focus-visible{outline:3px solid #e0a100;outline-offset:2px}',
].join('\n');

// Only this exact stylesheet may apply: no scripts, no other origin, no framing, forms post back here.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  // The URL is a bearer capability and the page shows case data: never cached, never leaked onwards.
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-robots-tag': 'noindex, nofollow',
};

const ALLOWED_METHODS = 'GET, HEAD, POST';

interface Page {
  status: number;
  title: string;
  body: string;
  headers?: Record<string, string>;
}

/**
 * The sandbox payer's portal as an operator sees it through an access grant: the page a runtime session's
 * access URL (SandboxRuntimeSessions.accessUrl) leads to. The API mounts `handle` at `SANDBOX_SESSION_ROUTE`
 * for GET, HEAD and POST, outside `/v1` and before any body parser: the signed token in the last path segment
 * is the only credential. Interactive access shows a form that submits the request to the simulated payer and
 * answers with the payer's reference number, which the operator then reports when completing the handoff;
 * read-only access shows the same session without controls.
 */
export class SandboxSessionPage {
  constructor(private readonly options: SandboxSessionPageOptions) {}

  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let page: Page;
    try {
      page = await this.answer(req);
    } catch (error) {
      this.options.onError?.(error);
      page = messagePage(
        503,
        'Portal unavailable',
        'The sandbox payer portal cannot be reached right now. Try again in a moment.',
      );
    }
    send(req, res, page);
  };

  private async answer(req: IncomingMessage): Promise<Page> {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
      return {
        ...messagePage(405, 'Not allowed', 'This page can only be viewed or submitted.'),
        headers: { allow: ALLOWED_METHODS },
      };
    }

    const check = verifySandboxSessionToken(this.options.signer, tokenOf(req), this.options.clock.now());
    if (!check.ok && check.reason === 'expired') {
      return messagePage(
        410,
        'Link expired',
        'This link to the payer portal has expired. Request a new access grant to continue.',
      );
    }
    if (!check.ok) return messagePage(403, 'Link not valid', 'This link to the payer portal is not valid.');

    const session = await this.options.ledger.find(check.claims.sid);
    if (session === null || session.provider !== SANDBOX_RUNTIME_PROVIDER) {
      return messagePage(404, 'Session not found', 'The payer portal has no such session.');
    }
    if (session.status === 'ended') {
      return messagePage(
        410,
        'Session ended',
        'This payer portal session has ended. Nothing more can be done or seen in it.',
      );
    }

    const access = check.claims.access;
    if (method !== 'POST') return sessionPage(session, access, null);
    if (access === 'read_only') {
      return sessionPage(session, access, {
        status: 403,
        html: '<p class="refusal" role="alert"><strong>Not submitted.</strong> This is a read-only live view; it cannot submit anything to the payer.</p>',
      });
    }
    if (!(await readSmallBody(req))) {
      return {
        ...messagePage(413, 'Request too large', 'The submission was larger than the portal accepts.'),
        headers: { connection: 'close' },
      };
    }
    const reference = sandboxManualReferenceNumber(session.authorizationId);
    return sessionPage(session, access, {
      status: 200,
      html: [
        '<section class="receipt" aria-labelledby="receipt-heading" role="status">',
        '<h2 id="receipt-heading">Request received by the payer</h2>',
        `<p>Payer reference number: <span class="reference" id="reference-number">${escapeHtml(reference)}</span></p>`,
        '<p>Report this reference number when you complete the manual handoff.</p>',
        '</section>',
      ].join('\n'),
    });
  }
}

/** The session as the portal shows it; `outcome` replaces the form after a POST. */
function sessionPage(
  session: RuntimeSessionRecord,
  access: RuntimeSessionAccess,
  outcome: { status: number; html: string } | null,
): Page {
  const interactive = access === 'interactive';
  const parts: string[] = [];
  if (!interactive) {
    parts.push(
      '<p class="banner" role="status"><strong>Read-only live view.</strong> You are watching this session at the payer; you cannot act in it.</p>',
    );
  }
  parts.push(
    '<h2>Prior authorization request</h2>',
    '<dl>',
    `<dt>Session</dt><dd>${escapeHtml(session.id)}</dd>`,
    `<dt>Authorization</dt><dd>${escapeHtml(session.authorizationId)}</dd>`,
    `<dt>Session started</dt><dd><time datetime="${escapeHtml(session.createdAt.toISOString())}">${escapeHtml(readableTime(session.createdAt))}</time></dd>`,
    `<dt>Access</dt><dd>${interactive ? 'Interactive' : 'Read-only'}</dd>`,
    '</dl>',
  );
  if (outcome !== null) {
    parts.push(outcome.html);
  } else if (interactive) {
    parts.push(
      // No action attribute: the form posts back to this very URL, token included.
      '<form method="post">',
      '<h2>Submit to the payer</h2>',
      '<p>Submitting sends this request to the sandbox payer. The payer answers with a reference number to report when you complete the manual handoff.</p>',
      '<button type="submit">Submit request to payer</button>',
      '</form>',
    );
  }
  return {
    status: outcome?.status ?? 200,
    title: interactive ? 'Session' : 'Read-only live view',
    body: parts.join('\n'),
  };
}

function messagePage(status: number, title: string, message: string): Page {
  return { status, title, body: `<h2>${escapeHtml(title)}</h2>\n<p>${escapeHtml(message)}</p>` };
}

function send(req: IncomingMessage, res: ServerResponse, page: Page): void {
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(page.title)} – Sandbox payer portal</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<p class="notice">Sandbox: a simulated payer. Nothing here reaches a real payer.</p>',
    '<header><h1>Sandbox payer portal</h1></header>',
    `<main>\n${page.body}\n</main>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
  const headers = { ...HEADERS, ...page.headers, 'content-length': String(Buffer.byteLength(html, 'utf8')) };
  res.writeHead(page.status, headers);
  res.end(req.method === 'HEAD' ? undefined : html);
}

/** The last path segment of the request URL, percent-decoded; empty when there is none or it is malformed. */
function tokenOf(req: IncomingMessage): string {
  const path = (req.url ?? '').split(/[?#]/, 1)[0] ?? '';
  const segment = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

/** Consumes the request body; false when it is larger than a form submission can be. */
async function readSmallBody(req: IncomingMessage): Promise<boolean> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_FORM_BYTES) return false;
  if (req.readableEnded) return true;
  let size = 0;
  // Read to the end even past the limit, so the answer can still go out on this connection.
  for await (const chunk of req) size += (chunk as Buffer).length;
  return size <= MAX_FORM_BYTES;
}

const readableTime = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The reference number the sandbox session page shows for the request an operator submits there by hand for
 * `authorizationId`. One per authorization: submitting again shows the same one. The simulated payer website
 * does not know it (decision 0022): a handoff completed with it is not found at the payer.
 */
export function sandboxManualReferenceNumber(authorizationId: string): string {
  return `SBXM-${createHash('sha256')
    .update(`manual-submission:${authorizationId}`, 'utf8')
    .digest('hex')
    .slice(0, 12)
    .toUpperCase()}`;
}
