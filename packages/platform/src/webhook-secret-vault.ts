import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { WebhookSecretVault } from '@prior-auth/domain';

const SEAL_VERSION = 'v1';
const SECRET_BYTES = 32;

/**
 * Webhook signing secrets sealed with AES-256-GCM under a key derived (HKDF-SHA256, purpose-bound) from the
 * deployment's SIGNING_SECRET, the one configured key every process shares (docs/decisions/
 * 0031-events-and-webhooks.md). Changing SIGNING_SECRET makes stored secrets unreadable: rotate each
 * endpoint's secret afterwards.
 */
export class AesGcmWebhookSecretVault implements WebhookSecretVault {
  private readonly key: Buffer;

  constructor(signingSecret: string) {
    if (signingSecret.length < 32) throw new Error('signing secret must be at least 32 characters');
    this.key = Buffer.from(hkdfSync('sha256', signingSecret, Buffer.alloc(0), 'webhook-secrets:v1', 32));
  }

  /** The Standard Webhooks format: `whsec_` and the base64 of 32 random bytes. */
  generate(): string {
    return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [SEAL_VERSION, iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== SEAL_VERSION || iv === undefined || tag === undefined || body === undefined) {
      throw new Error('not a sealed webhook secret');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
