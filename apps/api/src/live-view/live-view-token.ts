import { type RuntimeSessionAccess } from '@prior-auth/domain';
import { type TokenSigner } from '@prior-auth/platform';

/** What a live-view URL grants: the session, how, through which grant, until when. */
export interface LiveViewClaims {
  /** The runtime session. */
  sid: string;
  /** The access grant it was opened through (checked and audited again on every use). */
  gid: string;
  access: RuntimeSessionAccess;
  /** Expiry, Unix epoch milliseconds (the grant's). */
  exp: number;
}

/** Bound into the HMAC, so tokens of other features (grants, cursors, blob URLs) never verify here. */
const PURPOSE = 'api.live-view.v1';
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_TOKEN_LENGTH = 2048;

export function signLiveViewToken(signer: TokenSigner, claims: LiveViewClaims): string {
  if (!Number.isSafeInteger(claims.exp)) throw new Error('token expiry must be a whole epoch millisecond');
  return signer.sign(PURPOSE, { sid: claims.sid, gid: claims.gid, access: claims.access, exp: claims.exp });
}

/** The claims of a genuine token (expired or not: the grant decides); null for anything else. */
export function verifyLiveViewToken(signer: TokenSigner, token: string): LiveViewClaims | null {
  if (token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) return null;
  const claims = signer.verify<unknown>(PURPOSE, token);
  return isClaims(claims) ? claims : null;
}

function isClaims(value: unknown): value is LiveViewClaims {
  if (typeof value !== 'object' || value === null) return false;
  const claims = value as Record<string, unknown>;
  return (
    typeof claims.sid === 'string' &&
    typeof claims.gid === 'string' &&
    (claims.access === 'interactive' || claims.access === 'read_only') &&
    typeof claims.exp === 'number' &&
    Number.isSafeInteger(claims.exp)
  );
}
