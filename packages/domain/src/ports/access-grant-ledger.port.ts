import { type TenantScope } from '../shared/scope';
import { type GrantKind } from './grant-issuer.port';

/** An issued access grant as stored. Its URL is never stored: the URL is the bearer capability. */
export interface AccessGrantRecord {
  /** Globally unique (random), so a verified token's grant id alone finds the grant. */
  id: string;
  scope: TenantScope;
  kind: GrantKind;
  subjectId: string;
  expiresAt: Date;
  revokedAt: Date | null;
  createdAt: Date;
}

/** What an opening says about its grant: enough to audit it under the grant's tenant and subject. */
export type AccessGrantReference = Pick<AccessGrantRecord, 'id' | 'scope' | 'kind' | 'subjectId'>;

/**
 * `redirected`: the grant URL led on to the session; `viewed`: a live view (or its stream) reached through it was
 * served; `input_refused`: input was sent to a read-only live view. The others are refusals.
 */
export type AccessGrantOpeningOutcome =
  'redirected' | 'viewed' | 'input_refused' | 'expired' | 'revoked' | 'subject_inactive' | 'invalid';

/** Who tried to open a grant, as far as the request tells. */
export interface AccessGrantClient {
  address: string | null;
  userAgent: string | null;
}

/**
 * One attempt to open a grant. Only an `invalid` attempt (a token that fails verification or names no known
 * grant) lacks a grant: such a token names no trustworthy grant or tenant.
 */
export type AccessGrantOpening = {
  client: AccessGrantClient;
  openedAt: Date;
} & (
  | { grant: AccessGrantReference; outcome: Exclude<AccessGrantOpeningOutcome, 'invalid'> }
  | { grant: null; outcome: 'invalid' }
);

/** Issued access grants and the audit of every attempt to open one, refusals included. */
export interface AccessGrantLedger {
  record(grant: Omit<AccessGrantRecord, 'revokedAt'>): Promise<void>;
  find(id: string): Promise<AccessGrantRecord | null>;
  /** Revokes the subject's grants that are still live at `now`; returns how many. */
  revokeForSubject(subjectId: string, now: Date): Promise<number>;
  recordOpening(opening: AccessGrantOpening): Promise<void>;
}
