import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { assertWebhookUrlAllowed, type Environment, type HostResolver } from '@prior-auth/domain';
import { Webhook } from 'standardwebhooks';

/*
 * One webhook send (docs/decisions/0031-events-and-webhooks.md): signed per Standard Webhooks, the address
 * rule of that decision checked again at send time, with a bounded timeout, no redirect followed (a 3xx is
 * a failure) and at most RESPONSE_EXCERPT_BYTES of the answer kept.
 */

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const RESPONSE_EXCERPT_BYTES = 4 * 1024;

export interface WebhookSendRequest {
  url: string;
  environment: Environment;
  /** The event id: the `webhook-id`, the same for every attempt of a delivery. */
  messageId: string;
  /** The rendered event, sent as is. */
  body: string;
  /** The secrets in clear (`whsec_…`): the current one and any replaced one still in its overlap. */
  secrets: readonly string[];
  now: Date;
}

export interface WebhookSendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

/** `v1,<sig>` for each secret, space-separated, as Standard Webhooks allows during a rotation. */
export function signWebhook(
  secrets: readonly string[],
  messageId: string,
  timestamp: Date,
  body: string,
): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(' ');
}

/** The headers of a delivery. */
export function webhookHeaders(request: Omit<WebhookSendRequest, 'url' | 'environment'>) {
  return {
    'content-type': 'application/json',
    'user-agent': 'prior-auth-webhooks/1',
    'webhook-id': request.messageId,
    'webhook-timestamp': String(Math.floor(request.now.getTime() / 1000)),
    'webhook-signature': signWebhook(request.secrets, request.messageId, request.now, request.body),
  };
}

/** A lookup that answers only the addresses the address rule allowed, so DNS cannot change between check and use. */
const pinnedLookup =
  (addresses: readonly string[]): LookupFunction =>
  (_hostname, options, callback) => {
    const address = addresses[0] ?? '';
    const family = isIP(address);
    if (options.all) {
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(
        null,
        addresses.map((a) => ({ address: a, family: isIP(a) })),
      );
      return;
    }
    callback(null, address, family);
  };

export class WebhookSender {
  constructor(
    private readonly resolver: HostResolver,
    private readonly timeoutMs = WEBHOOK_TIMEOUT_MS,
  ) {}

  async send(request: WebhookSendRequest): Promise<WebhookSendResult> {
    const started = Date.now();
    const failed = (error: string, statusCode: number | null = null, excerpt: string | null = null) => ({
      ok: false,
      statusCode,
      durationMs: Date.now() - started,
      responseExcerpt: excerpt,
      error,
    });
    let addresses: string[];
    try {
      addresses = await assertWebhookUrlAllowed(request.url, request.environment, this.resolver);
    } catch (error) {
      return failed(`refused: ${(error as Error).message}`);
    }
    const url = new URL(request.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<WebhookSendResult>((resolve) => {
      let settled = false;
      const finish = (result: WebhookSendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = send(
        url,
        {
          method: 'POST',
          headers: webhookHeaders(request),
          // Production connects only to the addresses just checked; the sandbox may use local names.
          ...(addresses.length > 0 ? { lookup: pinnedLookup(addresses) } : {}),
          agent: false,
        },
        (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          const done = () => {
            const statusCode = response.statusCode ?? null;
            const excerpt = Buffer.concat(chunks).toString('utf8');
            const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
            let error: string | null = null;
            if (!ok) {
              error =
                statusCode !== null && statusCode >= 300 && statusCode < 400
                  ? `redirect not followed (${statusCode})`
                  : `status ${statusCode}`;
            }
            finish({ ok, statusCode, durationMs: Date.now() - started, responseExcerpt: excerpt, error });
            response.destroy();
            req.destroy();
          };
          response.on('data', (chunk: Buffer) => {
            if (kept >= RESPONSE_EXCERPT_BYTES) return;
            const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
            chunks.push(part);
            kept += part.length;
            // The rest of the body is not read: the limit bounds what a receiver can make the worker hold.
            if (kept >= RESPONSE_EXCERPT_BYTES) done();
          });
          response.on('end', done);
          response.on('error', (error) => finish(failed(error.message, response.statusCode ?? null)));
        },
      );
      const timer = setTimeout(() => {
        finish(failed(`timeout after ${this.timeoutMs} ms`));
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (error) => finish(failed(error.message)));
      req.end(request.body);
    });
  }
}
