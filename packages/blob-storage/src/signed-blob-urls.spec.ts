import { SignedBlobUrls, type BlobUrlClaims } from './signed-blob-urls';

const SECRET = 'x'.repeat(32);
const NOW = new Date('2026-03-02T09:00:00.000Z');
const LATER = new Date(NOW.getTime() + 15 * 60 * 1000);
const KEY = 'sandbox/org_1/files/file_1';

const urls = (overrides: { now?: Date; secret?: string; base?: string } = {}) =>
  new SignedBlobUrls({
    publicBaseUrl: overrides.base ?? 'https://api.example.test',
    signingSecret: overrides.secret ?? SECRET,
    now: () => overrides.now ?? NOW,
  });

const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

const uploadToken = (signer = urls()) =>
  tokenOf(signer.uploadUrl(KEY, { contentType: 'application/pdf', maxBytes: 1024, expiresAt: LATER }));

describe('SignedBlobUrls', () => {
  it('builds upload and download URLs outside /v1 under the public base URL, keeping its path', () => {
    expect(uploadToken()).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(urls().uploadUrl(KEY, { contentType: 'image/png', maxBytes: 1, expiresAt: LATER })).toMatch(
      /^https:\/\/api\.example\.test\/blobs\/upload\/[A-Za-z0-9_.-]+$/,
    );
    expect(urls({ base: 'https://host.test/prior-auth/' }).downloadUrl(KEY, LATER)).toMatch(
      /^https:\/\/host\.test\/prior-auth\/blobs\/download\/[A-Za-z0-9_.-]+$/,
    );
  });

  it('never puts the key in the URL path', () => {
    expect(urls().downloadUrl(KEY, LATER)).not.toContain('org_1');
  });

  it('verifies its own upload token and returns the claims', () => {
    expect(urls().verify(uploadToken(), { op: 'put', key: KEY })).toEqual({
      ok: true,
      claims: { key: KEY, op: 'put', exp: LATER.getTime(), contentType: 'application/pdf', maxBytes: 1024 },
    });
  });

  it('verifies a download token', () => {
    const token = tokenOf(urls().downloadUrl(KEY, LATER));
    expect(urls().verify(token, { op: 'get' })).toEqual({
      ok: true,
      claims: { key: KEY, op: 'get', exp: LATER.getTime(), contentType: null, maxBytes: null },
    });
  });

  it('refuses a token whose payload was altered (another key, a larger size)', () => {
    const [body, mac] = uploadToken().split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as BlobUrlClaims;
    for (const altered of [
      { ...claims, key: 'sandbox/org_2/files/file_1' },
      { ...claims, maxBytes: 10 ** 9 },
      { ...claims, exp: claims.exp + 3_600_000 },
    ]) {
      const forged = `${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${mac}`;
      expect(urls().verify(forged, { op: 'put' })).toEqual({ ok: false, reason: 'invalid_signature' });
    }
  });

  it('refuses a token with a flipped signature character or signed with another secret', () => {
    const token = uploadToken();
    const at = token.indexOf('.') + 5; // not the last character, whose low bits are base64 padding
    const flipped = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    expect(urls().verify(flipped, { op: 'put' })).toEqual({
      ok: false,
      reason: 'invalid_signature',
    });
    expect(urls().verify(uploadToken(urls({ secret: 'y'.repeat(32) })), { op: 'put' })).toEqual({
      ok: false,
      reason: 'invalid_signature',
    });
  });

  it.each<[string, string]>([
    ['empty', ''],
    ['no dot', 'abc'],
    ['two dots', 'a.b.c'],
    ['a slash', 'a/b.c'],
    ['a traversal', '../x.y'],
    ['5000 characters', `${'a'.repeat(5000)}.b`],
  ])('refuses a malformed token (%s)', (_label, token) => {
    expect(urls().verify(token, { op: 'put' })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses an expired token, including at the exact expiry instant', () => {
    expect(urls({ now: LATER }).verify(uploadToken(), { op: 'put' })).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(urls({ now: new Date(LATER.getTime() - 1) }).verify(uploadToken(), { op: 'put' }).ok).toBe(true);
  });

  it('refuses a token reused for the other operation', () => {
    expect(urls().verify(uploadToken(), { op: 'get' })).toEqual({ ok: false, reason: 'wrong_operation' });
    const download = tokenOf(urls().downloadUrl(KEY, LATER));
    expect(urls().verify(download, { op: 'put' })).toEqual({ ok: false, reason: 'wrong_operation' });
  });

  it('refuses a token presented for another key', () => {
    expect(urls().verify(uploadToken(), { op: 'put', key: 'sandbox/org_1/files/file_2' })).toEqual({
      ok: false,
      reason: 'wrong_key',
    });
  });

  it('refuses to sign an unsafe key, and refuses a short secret or a non-http base URL', () => {
    expect(() => urls().downloadUrl('../etc/passwd', LATER)).toThrow(/invalid blob key/);
    expect(() => urls({ secret: 'short' })).toThrow(/at least 32/);
    expect(() => urls({ base: 'ftp://x.test' })).toThrow(/http\(s\)/);
    expect(() => urls({ base: 'not a url' })).toThrow(/http\(s\)/);
  });
});
