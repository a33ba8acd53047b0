import { type CustomerPortalSessionKey, type CustomerPortalSessions } from '@prior-auth/domain';

/** Distinct cases whose sessions one process keeps at once. */
const MAX_SESSIONS_KEPT = 256;

const keyOf = (key: CustomerPortalSessionKey) =>
  `${key.organizationId}\u0000${key.environment}\u0000${key.authorizationId}`;

/**
 * Customers' portal sessions in this process's memory only: what a portal uses when no shared store is given
 * (a worker without `CREDENTIALS_KEY`, tests). A case's later run on another process finds nothing here and
 * asks the customer to sign in again (docs/decisions/0044-customer-sessions-shared-by-workers.md).
 */
export class MemoryCustomerPortalSessions implements CustomerPortalSessions {
  private readonly sessions = new Map<string, { state: string; expiresAt: Date }>();

  async keep(key: CustomerPortalSessionKey, state: string, expiresAt: Date): Promise<void> {
    const id = keyOf(key);
    this.sessions.delete(id);
    if (this.sessions.size >= MAX_SESSIONS_KEPT) {
      // The session kept longest goes, so the memory stays bounded.
      this.sessions.delete(this.sessions.keys().next().value!);
    }
    this.sessions.set(id, { state, expiresAt });
  }

  async find(key: CustomerPortalSessionKey, now: Date): Promise<string | null> {
    const kept = this.sessions.get(keyOf(key));
    if (kept === undefined) return null;
    if (kept.expiresAt <= now) {
      this.sessions.delete(keyOf(key));
      return null;
    }
    return kept.state;
  }

  async forget(key: CustomerPortalSessionKey): Promise<void> {
    this.sessions.delete(keyOf(key));
  }

  async purgeExpired(now: Date): Promise<number> {
    let purged = 0;
    for (const [id, kept] of this.sessions) {
      if (kept.expiresAt <= now) {
        this.sessions.delete(id);
        purged += 1;
      }
    }
    return purged;
  }
}
