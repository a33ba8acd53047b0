import type {
  AccessGrantClient,
  AccessGrantLedger,
  AccessGrantOpeningOutcome,
  AccessGrantRecord,
  AccessGrantReference,
  Clock,
  GrantKind,
  TenantScope,
} from '@prior-auth/domain';
import type { TokenSigner } from '@prior-auth/platform';
import { verifyAccessGrantToken } from './access-grant-token';

/**
 * Where an opened grant leads (the runtime session's URL), or null when its subject can no longer be used
 * (the handoff is no longer active, the live session has ended). Called only for live, unrevoked grants.
 */
export type GrantSubjectResolver = (grant: {
  scope: TenantScope;
  kind: GrantKind;
  subjectId: string;
  expiresAt: Date;
  grantId: string;
}) => Promise<string | null>;

export type GrantOpening =
  | { outcome: 'redirected'; location: string; grantId: string }
  | { outcome: 'invalid' | 'expired' | 'revoked' | 'subject_inactive'; grantId: string | null };

export interface AccessGrantGateOptions {
  ledger: AccessGrantLedger;
  signer: TokenSigner;
  clock: Clock;
  resolveSubject: GrantSubjectResolver;
}

// Client details come from request headers the opener controls; bounded so a hostile header cannot bloat
// the audit trail.
export const MAX_AUDITED_USER_AGENT_LENGTH = 512;
const MAX_AUDITED_ADDRESS_LENGTH = 256;

/**
 * Opens access-grant URLs: checks the token, the grant and its subject, and audits every attempt, refusals
 * included, before answering. If the audit cannot be written the attempt fails rather than going unrecorded.
 */
export class AccessGrantGate {
  constructor(private readonly options: AccessGrantGateOptions) {}

  async open(token: string, client: AccessGrantClient): Promise<GrantOpening> {
    const openedAt = this.options.clock.now();
    const audited: AccessGrantClient = {
      address: bounded(client.address, MAX_AUDITED_ADDRESS_LENGTH),
      userAgent: bounded(client.userAgent, MAX_AUDITED_USER_AGENT_LENGTH),
    };

    const grant = await this.findGrant(token);
    if (grant === null) {
      await this.options.ledger.recordOpening({ grant: null, outcome: 'invalid', client: audited, openedAt });
      return { outcome: 'invalid', grantId: null };
    }
    const reference: AccessGrantReference = {
      id: grant.id,
      scope: grant.scope,
      kind: grant.kind,
      subjectId: grant.subjectId,
    };
    const record = (outcome: Exclude<AccessGrantOpeningOutcome, 'invalid'>) =>
      this.options.ledger.recordOpening({ grant: reference, outcome, client: audited, openedAt });
    const refuse = async (outcome: 'revoked' | 'expired' | 'subject_inactive'): Promise<GrantOpening> => {
      await record(outcome);
      return { outcome, grantId: grant.id };
    };

    if (grant.revokedAt !== null) return refuse('revoked');
    if (openedAt.getTime() >= grant.expiresAt.getTime()) return refuse('expired');
    let location: string | null;
    try {
      location = await this.options.resolveSubject({
        scope: grant.scope,
        kind: grant.kind,
        subjectId: grant.subjectId,
        expiresAt: grant.expiresAt,
        grantId: grant.id,
      });
    } catch (error) {
      // The subject could not be checked, so access is refused; the attempt is still audited as a refusal.
      await record('subject_inactive');
      throw error;
    }
    if (location === null) return refuse('subject_inactive');
    await record('redirected');
    return { outcome: 'redirected', location, grantId: grant.id };
  }

  /** The grant a genuine token names; null for a forged, altered or foreign token, or an unknown grant. */
  private async findGrant(token: string): Promise<AccessGrantRecord | null> {
    const claims = verifyAccessGrantToken(this.options.signer, token);
    if (claims === null) return null;
    const grant = await this.options.ledger.find(claims.grantId);
    // The token must describe the grant exactly as issued.
    if (grant === null || grant.expiresAt.getTime() !== claims.expiresAt.getTime()) return null;
    return grant;
  }
}

/** Drops control characters (the database refuses NUL) and cuts to `max` characters; empty becomes null. */
function bounded(value: string | null, max: number): string | null {
  if (value === null) return null;
  // Pre-cut in code units first so an oversized header costs no more work than a maximal one.
  const kept = Array.from(value.slice(0, max * 2)).filter((char) => {
    const code = char.codePointAt(0) ?? 0;
    return code >= 0x20 && code !== 0x7f;
  });
  return kept.length === 0 ? null : kept.slice(0, max).join('');
}
