import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Portal credentials' secrets at rest (decision 0021): AES-256-GCM, a random 12-byte IV per secret, the
 * authentication tag kept with it, and the id of the key that sealed it so keys can rotate. A sealed secret is
 * one text value: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url). The context (whose secret, which field)
 * is authenticated too, so a sealed value copied to another row does not open.
 */
const FORMAT = 'v1';
const IV_BYTES = 12;
const KEY_BYTES = 32;

export interface CredentialsKey {
  id: string;
  key: Buffer;
}

/** Why a sealed secret could not be opened: tampered, another key, or a key no longer configured. */
export class SecretUnreadableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretUnreadableError';
  }
}

/** One key: 64 hex digits or the base64 of 32 bytes. Returns a problem text when it is neither. */
function decodeKey(text: string): Buffer | string {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) {
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length === KEY_BYTES) return bytes;
  }
  return 'must be 32 bytes as 64 hex digits or base64 (e.g. `openssl rand -base64 32`)';
}

/** A key's id: the start of its SHA-256, so two keys never share an id and the id reveals nothing usable. */
const keyId = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

/**
 * `CREDENTIALS_KEY`: one or more keys separated by commas. The first seals new secrets; all of them open
 * stored ones, so a rotation puts the new key first and keeps the old ones until every secret is set again.
 */
export function parseCredentialsKeys(value: string): CredentialsKey[] | string {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) return 'must name at least one key';
  const keys: CredentialsKey[] = [];
  for (const [index, part] of parts.entries()) {
    const key = decodeKey(part);
    if (typeof key === 'string') return parts.length === 1 ? key : `key ${index + 1} ${key}`;
    keys.push({ id: keyId(key), key });
  }
  return keys;
}

const b64 = (bytes: Buffer) => bytes.toString('base64url');

export class CredentialsCipher {
  private readonly byId: Map<string, Buffer>;
  private readonly current: CredentialsKey;

  constructor(keys: readonly CredentialsKey[]) {
    if (keys[0] === undefined) throw new Error('CredentialsCipher needs at least one key');
    this.current = keys[0];
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** The id of the key new secrets are sealed with. */
  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, this.current.id, b64(iv), b64(cipher.getAuthTag()), b64(ciphertext)].join('.');
  }

  open(sealed: string, context: string): string {
    const [format, id, iv, tag, ciphertext, ...rest] = sealed.split('.');
    if (format !== FORMAT || !id || !iv || !tag || ciphertext === undefined || rest.length > 0) {
      throw new SecretUnreadableError('the stored secret is not in a known format');
    }
    const key = this.byId.get(id);
    if (key === undefined) {
      throw new SecretUnreadableError(`the stored secret was sealed with key ${id}, which is not configured`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretUnreadableError('the stored secret does not authenticate (altered, or another key)');
    }
  }
}
