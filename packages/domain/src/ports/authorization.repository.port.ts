import { type Authorization } from '../authorization/authorization.aggregate';
import { type AuthorizationStatus } from '../authorization/authorization.types';

export interface AuthorizationListQuery {
  status?: AuthorizationStatus;
  /**
   * Only cases still waiting on the payer whose decision was due before this time (docs/decisions/0031-events-and-webhooks.md: the
   * use case passes its clock's now for `?overdue=true`).
   */
  decisionOverdueAt?: Date;
  /** 1–100; validated by the caller. */
  limit: number;
  /** Opaque cursor from a previous page of the same query. */
  cursor?: string;
}

/** What a read that already holds `version` of an authorization gets when the stored one is that version. */
export interface AuthorizationUnchanged {
  readonly unchanged: true;
  readonly id: string;
  readonly version: number;
}

/** Which version of an authorization a list found (AuthorizationRepository.listVersions). */
export interface AuthorizationVersion {
  readonly id: string;
  readonly version: number;
}

export interface Page<T> {
  /** Newest first. */
  items: T[];
  nextCursor: string | null;
}

/**
 * Authorizations of one tenant. Instances are handed out by the unit of work already bound to one
 * TenantScope, so no method can read or write another organization's or environment's data.
 */
export interface AuthorizationRepository {
  findById(id: string): Promise<Authorization | null>;
  /**
   * As findById, but when the stored version is `knownVersion` the answer is only that fact: a reader that
   * keeps what it built from that version (the API's representations, docs/performance.md) needs nothing else,
   * since every change to an authorization or its children bumps its version.
   */
  findIfChanged(id: string, knownVersion: number): Promise<Authorization | AuthorizationUnchanged | null>;
  /**
   * Inserts when `persistedVersion` is null, otherwise updates only if the stored version still equals
   * `persistedVersion` (else throws VersionConflictError). Calls `markPersisted()` on success.
   */
  save(authorization: Authorization): Promise<void>;
  list(query: AuthorizationListQuery): Promise<Page<Authorization>>;
  /**
   * As list, but only which version of each listed authorization is stored: a reader that holds what it built
   * from most of them (the API's representations) loads only the others, with findVersions.
   */
  listVersions(query: AuthorizationListQuery): Promise<Page<AuthorizationVersion>>;
  /**
   * The authorizations stored at exactly these versions, in any order. One that has moved on to another
   * version since (or is gone) is left out, so a shorter answer tells the caller the list changed meanwhile.
   */
  findVersions(versions: readonly AuthorizationVersion[]): Promise<Authorization[]>;
}
