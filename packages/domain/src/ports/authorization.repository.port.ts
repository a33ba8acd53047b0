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
   * Inserts when `persistedVersion` is null, otherwise updates only if the stored version still equals
   * `persistedVersion` (else throws VersionConflictError). Calls `markPersisted()` on success.
   */
  save(authorization: Authorization): Promise<void>;
  list(query: AuthorizationListQuery): Promise<Page<Authorization>>;
}
