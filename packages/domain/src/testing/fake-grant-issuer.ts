import { type GrantIssuer, type GrantKind, type IssuedGrant } from '../ports/grant-issuer.port';
import { type TenantScope } from '../shared/scope';

export class FakeGrantIssuer implements GrantIssuer {
  readonly issued: Array<IssuedGrant & { scope: TenantScope; kind: GrantKind; subjectId: string }> = [];
  readonly revokedSubjects: string[] = [];
  failRevoke: Error | null = null;

  async issue(request: {
    scope: TenantScope;
    kind: GrantKind;
    subjectId: string;
    expiresAt: Date;
  }): Promise<IssuedGrant> {
    const id = `grant_${this.issued.length + 1}`;
    const grant = { id, url: `memory://grants/${id}`, expiresAt: new Date(request.expiresAt) };
    this.issued.push({ ...grant, ...request });
    return grant;
  }

  async revokeForSubject(subjectId: string): Promise<void> {
    if (this.failRevoke !== null) throw this.failRevoke;
    this.revokedSubjects.push(subjectId);
  }
}
