import { createHash, timingSafeEqual } from 'node:crypto';
import type { Environment } from '@prior-auth/domain';
import { randomBase62 } from './ids';

const PREFIX: Record<Environment, string> = { sandbox: 'pa_sandbox_', production: 'pa_live_' };
const KEY_PATTERN = /^pa_(sandbox|live)_[0-9A-Za-z]{40}$/;

export interface GeneratedApiKey {
  secret: string;
  hash: string;
  /** Shown in listings so operators can tell keys apart without the secret. */
  displayPrefix: string;
}

/** The environment is visible in the key itself (decision 0024), so a misplaced key is easy to spot. */
export function generateApiKey(environment: Environment): GeneratedApiKey {
  const secret = `${PREFIX[environment]}${randomBase62(40)}`;
  return { secret, hash: hashApiKey(secret), displayPrefix: secret.slice(0, PREFIX[environment].length + 6) };
}

export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function parseApiKey(secret: string): { environment: Environment } | null {
  const match = KEY_PATTERN.exec(secret);
  if (!match) return null;
  return { environment: match[1] === 'live' ? 'production' : 'sandbox' };
}

/** Constant-time comparison of two hex digests, so a lookup never leaks how much of a hash matched. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
