import {
  type AbandonedRuntimeSession,
  type NewRuntimeSession,
  type RuntimeSessionLedger,
  type RuntimeSessionRecord,
  type TenantScope,
} from '@prior-auth/domain';

/** The ledger's contract in memory, for exercising the sandbox adapters without a database. */
export class MemoryRuntimeSessionLedger implements RuntimeSessionLedger {
  readonly rows = new Map<string, RuntimeSessionRecord>();
  /** Each session's last beat, for those that beat. */
  readonly beats = new Map<string, Date>();

  async create(session: NewRuntimeSession): Promise<void> {
    if (this.rows.has(session.id)) throw new Error(`duplicate runtime session ${session.id}`);
    this.rows.set(session.id, { ...session, scope: { ...session.scope }, endedAt: null });
  }

  async findLive(scope: TenantScope, authorizationId: string): Promise<RuntimeSessionRecord | null> {
    const live = [...this.rows.values()]
      .filter(
        (row) =>
          row.status !== 'ended' &&
          row.authorizationId === authorizationId &&
          row.scope.organizationId === scope.organizationId &&
          row.scope.environment === scope.environment,
      )
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
    return live[0] === undefined ? null : { ...live[0] };
  }

  async find(sessionId: string): Promise<RuntimeSessionRecord | null> {
    const row = this.rows.get(sessionId);
    return row === undefined ? null : { ...row };
  }

  async end(sessionId: string, at: Date): Promise<boolean> {
    const row = this.rows.get(sessionId);
    if (row === undefined || row.status === 'ended') return false;
    this.rows.set(sessionId, { ...row, status: 'ended', endedAt: at });
    return true;
  }

  async beat(sessionIds: readonly string[], at: Date): Promise<void> {
    for (const id of sessionIds) {
      const last = this.beats.get(id);
      const live = this.rows.get(id)?.status !== 'ended' && this.rows.has(id);
      if (live && (last === undefined || last < at)) this.beats.set(id, at);
    }
  }

  async endAbandoned(lastBeatBefore: Date, at: Date): Promise<AbandonedRuntimeSession[]> {
    const abandoned = [...this.beats]
      .filter(([id, beat]) => beat < lastBeatBefore && this.rows.get(id)?.status !== 'ended')
      .map(([id]) => this.rows.get(id)!);
    for (const { id } of abandoned) await this.end(id, at);
    return abandoned.map(({ id, scope, authorizationId }) => ({ id, scope, authorizationId }));
  }
}
