import {
  type AccessGrantClient,
  type AccessGrantLedger,
  type Clock,
  type RuntimeSessionAccess,
  type RuntimeSessionLedger,
  type RuntimeSessionRecord,
} from '@prior-auth/domain';
import { MAX_AUDITED_USER_AGENT_LENGTH } from '@prior-auth/grants';
import { type TokenSigner } from '@prior-auth/platform';
import { verifyLiveViewToken } from './live-view-token';

/** What the holder of a live-view URL tries to do: see the page, receive its frames, or send input. */
export type LiveViewUse = 'view' | 'stream' | 'input';

export type LiveViewCheck =
  | { ok: true; session: RuntimeSessionRecord; expiresAt: Date; access: RuntimeSessionAccess }
  | { ok: false; refusal: 'invalid' | 'revoked' | 'expired' | 'subject_inactive' | 'read_only' };

const MAX_AUDITED_ADDRESS_LENGTH = 256;

/**
 * Checks every use of a live-view URL against the grant it was opened through, as the grant's own opening is
 * checked (decision 0014): signature, revocation, expiry, then the session (ended → subject inactive), and
 * input to a read-only view is refused. Every attempt is audited under the grant (`viewed`, `input_refused`
 * or the refusal), an unverifiable token as `invalid`.
 */
export class LiveViewAccess {
  constructor(
    private readonly options: {
      grants: AccessGrantLedger;
      sessions: RuntimeSessionLedger;
      signer: TokenSigner;
      clock: Clock;
    },
  ) {}

  async check(token: string, use: LiveViewUse, rawClient: AccessGrantClient): Promise<LiveViewCheck> {
    const { grants, sessions, signer, clock } = this.options;
    const openedAt = clock.now();
    const client: AccessGrantClient = {
      address: bounded(rawClient.address, MAX_AUDITED_ADDRESS_LENGTH),
      userAgent: bounded(rawClient.userAgent, MAX_AUDITED_USER_AGENT_LENGTH),
    };
    const claims = verifyLiveViewToken(signer, token);
    const grant = claims === null ? null : await grants.find(claims.gid);
    if (claims === null || grant === null || grant.expiresAt.getTime() !== claims.exp) {
      await grants.recordOpening({ grant: null, outcome: 'invalid', client, openedAt });
      return { ok: false, refusal: 'invalid' };
    }
    const reference = { id: grant.id, scope: grant.scope, kind: grant.kind, subjectId: grant.subjectId };
    const audit = (outcome: 'viewed' | 'input_refused' | 'revoked' | 'expired' | 'subject_inactive') =>
      grants.recordOpening({ grant: reference, outcome, client, openedAt });

    if (grant.revokedAt !== null) {
      await audit('revoked');
      return { ok: false, refusal: 'revoked' };
    }
    if (openedAt.getTime() >= grant.expiresAt.getTime()) {
      await audit('expired');
      return { ok: false, refusal: 'expired' };
    }
    if (use === 'input' && claims.access === 'read_only') {
      await audit('input_refused');
      return { ok: false, refusal: 'read_only' };
    }
    const session = await sessions.find(claims.sid);
    const sameTenant =
      session !== null &&
      session.scope.organizationId === grant.scope.organizationId &&
      session.scope.environment === grant.scope.environment;
    if (!sameTenant || session.status === 'ended') {
      await audit('subject_inactive');
      return { ok: false, refusal: 'subject_inactive' };
    }
    await audit('viewed');
    return { ok: true, session, expiresAt: grant.expiresAt, access: claims.access };
  }
}

/** Header text as the audit keeps it: no control characters (the database refuses NUL), bounded, empty → null. */
function bounded(value: string | null, max: number): string | null {
  if (value === null) return null;
  const kept = Array.from(value.slice(0, max * 2))
    .filter((char) => {
      const code = char.codePointAt(0) ?? 0;
      return code >= 0x20 && code !== 0x7f;
    })
    .slice(0, max)
    .join('');
  return kept === '' ? null : kept;
}
