import { type TenantScope } from '../shared/scope';

export type GrantKind = 'manual_handoff' | 'live_session';

export interface IssuedGrant {
  id: string;
  /** A short-lived bearer capability; opening it is validated and audited by the grant service. */
  url: string;
  expiresAt: Date;
}

/**
 * Short-lived access grants. `subjectId` is the manual handoff id (interactive access) or the authorization
 * id (read-only live view); the grant service re-checks the subject when a grant is opened.
 */
export interface GrantIssuer {
  issue(request: {
    scope: TenantScope;
    kind: GrantKind;
    subjectId: string;
    expiresAt: Date;
  }): Promise<IssuedGrant>;
  revokeForSubject(subjectId: string): Promise<void>;
}
