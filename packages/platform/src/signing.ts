import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-signed tokens for opaque capabilities (pagination cursors, upload URLs, grants). The payload is
 * readable by whoever holds the token but cannot be altered without the server's secret.
 */
export class TokenSigner {
  constructor(private readonly secret: string) {
    if (secret.length < 32) throw new Error('signing secret must be at least 32 characters');
  }

  sign(purpose: string, payload: unknown): string {
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${body}.${this.mac(purpose, body)}`;
  }

  /** Returns the payload, or null when the token was tampered with or signed for another purpose. */
  verify<T>(purpose: string, token: string): T | null {
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return null;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(purpose, body), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
    } catch {
      return null;
    }
  }

  private mac(purpose: string, body: string): string {
    return createHmac('sha256', this.secret).update(`${purpose}\n${body}`).digest('base64url');
  }
}
