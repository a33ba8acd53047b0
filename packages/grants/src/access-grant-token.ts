import type { TokenSigner } from '@prior-auth/platform';

/** Signing purpose of grant tokens: a token signed for anything else (a cursor, an upload URL) never opens one. */
export const ACCESS_GRANT_TOKEN_PURPOSE = 'access-grant';

// Ids come from the id generator (`grant_` + base62); anything longer or stranger is not one of ours.
const MAX_GRANT_ID_LENGTH = 128;

/** What a grant token names: the grant and its expiry, kept short because the token travels in a URL. */
interface AccessGrantTokenPayload {
  /** Grant id. */
  g: string;
  /** Expiry, epoch milliseconds. */
  e: number;
}

export function signAccessGrantToken(signer: TokenSigner, grant: { id: string; expiresAt: Date }): string {
  const payload: AccessGrantTokenPayload = { g: grant.id, e: grant.expiresAt.getTime() };
  return signer.sign(ACCESS_GRANT_TOKEN_PURPOSE, payload);
}

/** The grant a token names, or null when it fails verification or is not shaped like a grant token. */
export function verifyAccessGrantToken(
  signer: TokenSigner,
  token: string,
): { grantId: string; expiresAt: Date } | null {
  const payload = signer.verify<unknown>(ACCESS_GRANT_TOKEN_PURPOSE, token);
  if (typeof payload !== 'object' || payload === null) return null;
  const { g, e } = payload as Partial<Record<keyof AccessGrantTokenPayload, unknown>>;
  if (typeof g !== 'string' || g.length === 0 || g.length > MAX_GRANT_ID_LENGTH) return null;
  if (typeof e !== 'number' || !Number.isSafeInteger(e)) return null;
  return { grantId: g, expiresAt: new Date(e) };
}
