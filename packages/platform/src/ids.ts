import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from one buffer refilled from the CSPRNG when used up (as `crypto.randomUUID` does), not
 * a new buffer per id: every request makes ids, and a call into the CSPRNG per id showed in profiles
 * (docs/performance.md). Each byte is handed out once.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

const randomByte = (): number => {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
};

/** Random base62 text; rejection sampling keeps every character equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/** Opaque, prefixed identifiers (`auth_…`, `file_…`): readable in logs, unguessable, collision-free in practice. */
export class RandomIdGenerator {
  newId(prefix: string): string {
    return `${prefix}_${randomBase62(24)}`;
  }
}
