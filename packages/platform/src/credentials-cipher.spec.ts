import { randomBytes } from 'node:crypto';
import { ConfigError, credentialsCipher, loadConfig } from './config';
import {
  CredentialsCipher,
  parseCredentialsKeys,
  SecretUnreadableError,
  type CredentialsKey,
} from './credentials-cipher';

const keysOf = (value: string): CredentialsKey[] => {
  const keys = parseCredentialsKeys(value);
  if (typeof keys === 'string') throw new Error(keys);
  return keys;
};
const newKey = () => randomBytes(32).toString('base64');
const CONTEXT = 'portal_credentials:org_1:payer_uhc:password';

describe('CredentialsCipher (AES-256-GCM)', () => {
  const cipher = new CredentialsCipher(keysOf(newKey()));

  it('round-trips a secret, with a fresh IV every time and no plaintext in the sealed value', () => {
    const secret = 'Sandbox-Portal-2026!';
    const a = cipher.seal(secret, CONTEXT);
    const b = cipher.seal(secret, CONTEXT);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret);
    expect(a.split('.')).toHaveLength(5);
    expect(a.split('.')[1]).toBe(cipher.currentKeyId);
    expect(Buffer.from(a.split('.')[2]!, 'base64url')).toHaveLength(12);
    expect(cipher.open(a, CONTEXT)).toBe(secret);
    expect(cipher.open(b, CONTEXT)).toBe(secret);
    expect(cipher.open(cipher.seal('', CONTEXT), CONTEXT)).toBe('');
    expect(cipher.open(cipher.seal('pässwörd ✓', CONTEXT), CONTEXT)).toBe('pässwörd ✓');
  });

  it.each([
    ['ciphertext', 4],
    ['authentication tag', 3],
    ['IV', 2],
  ])('detects a tampered %s', (_part, index) => {
    const parts = cipher.seal('secret-value', CONTEXT).split('.');
    const bytes = Buffer.from(parts[index]!, 'base64url');
    bytes[0] = bytes[0]! ^ 0x01;
    parts[index] = bytes.toString('base64url');
    expect(() => cipher.open(parts.join('.'), CONTEXT)).toThrow(SecretUnreadableError);
  });

  it('refuses a sealed value moved to another context (another organization, payer or field)', () => {
    const sealed = cipher.seal('secret-value', CONTEXT);
    expect(() => cipher.open(sealed, 'portal_credentials:org_2:payer_uhc:password')).toThrow(
      SecretUnreadableError,
    );
  });

  it('refuses to open with the wrong key, naming the missing key id and never the secret', () => {
    const sealed = cipher.seal('secret-value', CONTEXT);
    const other = new CredentialsCipher(keysOf(newKey()));
    expect(() => other.open(sealed, CONTEXT)).toThrow(
      /sealed with key [0-9a-f]{16}, which is not configured/,
    );
    // Same key id forged onto another key's value: the tag does not match.
    const forged = sealed.replace(`.${cipher.currentKeyId}.`, `.${other.currentKeyId}.`);
    expect(() => other.open(forged, CONTEXT)).toThrow(SecretUnreadableError);
    expect(() => other.open('garbage', CONTEXT)).toThrow(/not in a known format/);
  });

  it('rotates: the first key seals, every configured key opens', () => {
    const oldKey = newKey();
    const sealedWithOld = new CredentialsCipher(keysOf(oldKey)).seal('old-secret', CONTEXT);
    const rotated = new CredentialsCipher(keysOf(`${newKey()},${oldKey}`));
    expect(rotated.open(sealedWithOld, CONTEXT)).toBe('old-secret');
    expect(rotated.seal('new', CONTEXT).split('.')[1]).toBe(rotated.currentKeyId);
    expect(rotated.currentKeyId).not.toBe(sealedWithOld.split('.')[1]);
  });
});

describe('CREDENTIALS_KEY configuration', () => {
  it('accepts 32 bytes as base64 or 64 hex digits', () => {
    const bytes = randomBytes(32);
    const fromBase64 = loadConfig({ CREDENTIALS_KEY: bytes.toString('base64') }).CREDENTIALS_KEY!;
    const fromHex = loadConfig({ CREDENTIALS_KEY: bytes.toString('hex') }).CREDENTIALS_KEY!;
    expect(fromBase64[0]!.id).toBe(fromHex[0]!.id);
  });

  it.each([
    ['too short', randomBytes(16).toString('base64')],
    ['not a key', 'correct horse battery staple'],
    ['a bad second key', `${randomBytes(32).toString('base64')},nope`],
  ])('a malformed key (%s) stops the process with a message naming the variable', (_why, value) => {
    expect(() => loadConfig({ CREDENTIALS_KEY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ CREDENTIALS_KEY: value })).toThrow(/CREDENTIALS_KEY .*32 bytes/);
  });

  it('is optional, but asking for the cipher without it is a ConfigError', () => {
    const config = loadConfig({});
    expect(config.CREDENTIALS_KEY).toBeUndefined();
    expect(() => credentialsCipher(config)).toThrow(ConfigError);
    expect(() => credentialsCipher(config)).toThrow(/CREDENTIALS_KEY is required/);
  });
});
