import { type RuntimeSessionAccess } from '@prior-auth/domain';
import { type TokenSigner } from '@prior-auth/platform';

/** What a sandbox session URL grants. Readable by whoever holds it, unalterable without the secret. */
export interface SandboxSessionClaims {
  /** The runtime session id. */
  sid: string;
  access: RuntimeSessionAccess;
  /** Expiry, Unix epoch milliseconds. */
  exp: number;
}

export type SandboxSessionTokenCheck =
  { ok: true; claims: SandboxSessionClaims } | { ok: false; reason: 'invalid' | 'expired' };

/** Bound into the HMAC, so tokens of other features (cursors, grants, blob URLs) never verify here. */
const PURPOSE = 'payer-portal.sandbox-session.v1';
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_TOKEN_LENGTH = 2048;

export function signSandboxSessionToken(signer: TokenSigner, claims: SandboxSessionClaims): string {
  if (!Number.isSafeInteger(claims.exp)) throw new Error('token expiry must be a whole epoch millisecond');
  return signer.sign(PURPOSE, { sid: claims.sid, access: claims.access, exp: claims.exp });
}

/** Signature first, so an altered token is refused as invalid even when it also claims to have expired. */
export function verifySandboxSessionToken(
  signer: TokenSigner,
  token: string,
  now: Date,
): SandboxSessionTokenCheck {
  if (token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) return { ok: false, reason: 'invalid' };
  const claims = signer.verify<unknown>(PURPOSE, token);
  if (!isClaims(claims)) return { ok: false, reason: 'invalid' };
  if (now.getTime() >= claims.exp) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

function isClaims(value: unknown): value is SandboxSessionClaims {
  if (typeof value !== 'object' || value === null) return false;
  const claims = value as Record<string, unknown>;
  return (
    typeof claims.sid === 'string' &&
    (claims.access === 'interactive' || claims.access === 'read_only') &&
    typeof claims.exp === 'number' &&
    Number.isSafeInteger(claims.exp)
  );
}
