import type {
  AccessGrantLedger,
  Clock,
  GrantIssuer,
  GrantKind,
  IdGenerator,
  IssuedGrant,
  TenantScope,
} from '@prior-auth/domain';
import type { TokenSigner } from '@prior-auth/platform';
import { signAccessGrantToken } from './access-grant-token';

export interface SignedAccessGrantsOptions {
  ledger: AccessGrantLedger;
  signer: TokenSigner;
  /** Public origin (and path prefix, if any) of the service that opens grants, e.g. `https://api.example.com`. */
  baseUrl: string;
  clock: Clock;
  ids: IdGenerator;
}

/**
 * Issues access grants as signed, expiring URLs. Only the grant is stored, never its URL: the URL is the
 * bearer capability, and the signature lets the gate tell a URL we issued from a forged or altered one.
 */
export class SignedAccessGrants implements GrantIssuer {
  private readonly baseUrl: string;

  constructor(private readonly options: SignedAccessGrantsOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async issue(request: {
    scope: TenantScope;
    kind: GrantKind;
    subjectId: string;
    expiresAt: Date;
  }): Promise<IssuedGrant> {
    const now = this.options.clock.now();
    const expiresAt = new Date(request.expiresAt);
    // A grant that is already dead would only produce a URL that can never open.
    if (!(expiresAt.getTime() > now.getTime())) {
      throw new RangeError('an access grant must expire in the future');
    }
    const id = this.options.ids.newId('grant');
    await this.options.ledger.record({
      id,
      scope: request.scope,
      kind: request.kind,
      subjectId: request.subjectId,
      expiresAt,
      createdAt: now,
    });
    const token = signAccessGrantToken(this.options.signer, { id, expiresAt });
    return { id, url: `${this.baseUrl}/grants/${token}`, expiresAt };
  }

  async revokeForSubject(subjectId: string): Promise<void> {
    await this.options.ledger.revokeForSubject(subjectId, this.options.clock.now());
  }
}
