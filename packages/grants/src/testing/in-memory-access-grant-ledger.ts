import type { AccessGrantLedger, AccessGrantOpening, AccessGrantRecord } from '@prior-auth/domain';

/** The ledger's contract in memory, for unit tests of the grant service; the database one has its own tests. */
export class InMemoryAccessGrantLedger implements AccessGrantLedger {
  readonly grants = new Map<string, AccessGrantRecord>();
  readonly openings: AccessGrantOpening[] = [];

  async record(grant: Omit<AccessGrantRecord, 'revokedAt'>): Promise<void> {
    if (this.grants.has(grant.id)) throw new Error(`grant ${grant.id} already recorded`);
    this.grants.set(grant.id, { ...grant, revokedAt: null });
  }

  async find(id: string): Promise<AccessGrantRecord | null> {
    const grant = this.grants.get(id);
    return grant === undefined ? null : { ...grant };
  }

  async revokeForSubject(subjectId: string, now: Date): Promise<number> {
    let revoked = 0;
    for (const grant of this.grants.values()) {
      if (grant.subjectId !== subjectId || grant.revokedAt !== null || grant.expiresAt <= now) continue;
      grant.revokedAt = now;
      revoked += 1;
    }
    return revoked;
  }

  async recordOpening(opening: AccessGrantOpening): Promise<void> {
    this.openings.push(structuredClone(opening));
  }
}
