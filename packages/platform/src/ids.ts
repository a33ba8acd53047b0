import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text; rejection sampling keeps every character equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Opaque, prefixed identifiers (`auth_…`, `file_…`): readable in logs, unguessable, collision-free in practice. */
export class RandomIdGenerator {
  newId(prefix: string): string {
    return `${prefix}_${randomBase62(24)}`;
  }
}
