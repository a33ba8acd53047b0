import { TokenSigner } from '@prior-auth/platform';
import { assertValidBlobKey } from './blob-key';

/** Express-style route paths the API mounts, outside `/v1` (the URL itself is the credential). */
export const BLOB_UPLOAD_ROUTE = '/blobs/upload/:token';
export const BLOB_DOWNLOAD_ROUTE = '/blobs/download/:token';

export type BlobUrlOperation = 'put' | 'get';

/** What a blob URL token grants. Readable by whoever holds the token, unalterable without the secret. */
export interface BlobUrlClaims {
  key: string;
  op: BlobUrlOperation;
  /** Expiry, Unix epoch milliseconds. */
  exp: number;
  /** The Content-Type an upload must declare; null on download tokens. */
  contentType: string | null;
  /** The most bytes an upload may send; null on download tokens. */
  maxBytes: number | null;
}

export type BlobUrlRefusalReason =
  /** Not shaped like a token at all. */
  | 'malformed'
  /** The signature does not match: tampered, truncated or signed with another secret. */
  | 'invalid_signature'
  | 'expired'
  /** A download token presented for an upload, or the reverse. */
  | 'wrong_operation'
  /** Signed for another key than the one it is presented for. */
  | 'wrong_key';

export type BlobUrlVerification =
  { ok: true; claims: BlobUrlClaims } | { ok: false; reason: BlobUrlRefusalReason };

export interface SignedBlobUrlsOptions {
  /** Absolute http(s) base the API is reached at, e.g. `https://api.example.com` (a path prefix is kept). */
  publicBaseUrl: string;
  /** HMAC-SHA256 secret, at least 32 characters. */
  signingSecret: string;
  now?: () => Date;
}

/** Purpose bound into the HMAC, so tokens of other features (cursors, grants) never verify here. */
const PURPOSE = 'blob-storage.url.v1';
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_TOKEN_LENGTH = 4096;

/**
 * Signed, expiring capabilities for the filesystem adapter: `PUT {base}/blobs/upload/{token}` and
 * `GET {base}/blobs/download/{token}`. The token carries the key, so no key ever appears in a URL path.
 */
export class SignedBlobUrls {
  private readonly signer: TokenSigner;
  private readonly base: string;
  private readonly now: () => Date;

  constructor(options: SignedBlobUrlsOptions) {
    let base: URL;
    try {
      base = new URL(options.publicBaseUrl);
    } catch {
      throw new Error('publicBaseUrl must be an absolute http(s) URL');
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new Error('publicBaseUrl must be an absolute http(s) URL');
    }
    if (base.search !== '' || base.hash !== '')
      throw new Error('publicBaseUrl must have no query or fragment');
    this.base = base.href.replace(/\/+$/, '');
    this.signer = new TokenSigner(options.signingSecret);
    this.now = options.now ?? (() => new Date());
  }

  uploadUrl(key: string, options: { contentType: string; maxBytes: number; expiresAt: Date }): string {
    const token = this.createToken({
      key,
      op: 'put',
      exp: options.expiresAt.getTime(),
      contentType: options.contentType,
      maxBytes: options.maxBytes,
    });
    return `${this.base}/blobs/upload/${token}`;
  }

  downloadUrl(key: string, expiresAt: Date): string {
    const token = this.createToken({
      key,
      op: 'get',
      exp: expiresAt.getTime(),
      contentType: null,
      maxBytes: null,
    });
    return `${this.base}/blobs/download/${token}`;
  }

  createToken(claims: BlobUrlClaims): string {
    assertValidBlobKey(claims.key);
    if (!Number.isSafeInteger(claims.exp)) throw new Error('token expiry must be a whole epoch millisecond');
    const payload: BlobUrlClaims = {
      key: claims.key,
      op: claims.op,
      exp: claims.exp,
      contentType: claims.contentType,
      maxBytes: claims.maxBytes,
    };
    return this.signer.sign(PURPOSE, payload);
  }

  /**
   * Checks, in order: shape, signature, operation, key (when `expected.key` is given), expiry. The token is
   * the last path segment of the URL, already percent-decoded by the router.
   */
  verify(token: string, expected: { op: BlobUrlOperation; key?: string }): BlobUrlVerification {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) {
      return { ok: false, reason: 'malformed' };
    }
    const claims = this.signer.verify<unknown>(PURPOSE, token);
    if (claims === null) return { ok: false, reason: 'invalid_signature' };
    if (!isClaims(claims)) return { ok: false, reason: 'malformed' };
    if (claims.op !== expected.op) return { ok: false, reason: 'wrong_operation' };
    if (expected.key !== undefined && claims.key !== expected.key) return { ok: false, reason: 'wrong_key' };
    if (this.now().getTime() >= claims.exp) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }
}

function isClaims(value: unknown): value is BlobUrlClaims {
  if (typeof value !== 'object' || value === null) return false;
  const claims = value as Record<string, unknown>;
  return (
    typeof claims.key === 'string' &&
    (claims.op === 'put' || claims.op === 'get') &&
    typeof claims.exp === 'number' &&
    Number.isSafeInteger(claims.exp) &&
    (claims.contentType === null || typeof claims.contentType === 'string') &&
    (claims.maxBytes === null ||
      (typeof claims.maxBytes === 'number' && Number.isSafeInteger(claims.maxBytes))) &&
    (claims.op === 'get' || (typeof claims.contentType === 'string' && typeof claims.maxBytes === 'number'))
  );
}
