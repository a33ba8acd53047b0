import type {
  AbandonedRuntimeSession,
  Environment,
  LiveSessionStatus,
  NewRuntimeSession,
  RuntimeSessionLedger,
  RuntimeSessionRecord,
  TenantScope,
} from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import { managerOf, type PostgresTransaction } from '../unit-of-work/postgres-transaction';
import { runSql } from '../unit-of-work/sql';
import { tenantParameters } from '../unit-of-work/tenant-bound';

/** A row of `runtime_sessions`. */
interface RuntimeSessionRow {
  organization_id: string;
  environment: Environment;
  id: string;
  authorization_id: string;
  provider: string;
  status: LiveSessionStatus;
  created_at: Date;
  ended_at: Date | null;
}

const toRecord = (row: RuntimeSessionRow): RuntimeSessionRecord => ({
  scope: { organizationId: row.organization_id, environment: row.environment },
  id: row.id,
  authorizationId: row.authorization_id,
  provider: row.provider,
  status: row.status,
  createdAt: row.created_at,
  endedAt: row.ended_at,
});

/**
 * Runtime sessions in the shared database, so any API or worker process can answer, release or open a
 * session another one provisioned. On the pool, or inside the transaction it is bound to (`on`): a session
 * provisioned while a handoff is created then rolls back with the handoff.
 */
export class TypeOrmRuntimeSessionLedger implements RuntimeSessionLedger {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx?: PostgresTransaction,
  ) {}

  /** The same ledger inside `tx`. */
  on(tx: PostgresTransaction): TypeOrmRuntimeSessionLedger {
    return new TypeOrmRuntimeSessionLedger(this.dataSource, tx);
  }

  async create(session: NewRuntimeSession): Promise<void> {
    await this.run((manager) =>
      runSql(
        manager,
        `INSERT INTO runtime_sessions
           (organization_id, environment, id, authorization_id, provider, status, created_at, ended_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)`,
        [
          ...tenantParameters(session.scope),
          session.id,
          session.authorizationId,
          session.provider,
          session.status,
          session.createdAt,
        ],
      ),
    );
  }

  async findLive(scope: TenantScope, authorizationId: string): Promise<RuntimeSessionRecord | null> {
    const { rows } = await this.run((manager) =>
      runSql<RuntimeSessionRow>(
        manager,
        // Served by the partial index runtime_sessions_live_idx; id breaks ties between equal start times.
        `SELECT * FROM runtime_sessions
         WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3 AND status <> 'ended'
         ORDER BY created_at DESC, id DESC
         LIMIT 1`,
        [...tenantParameters(scope), authorizationId],
      ),
    );
    return rows[0] === undefined ? null : toRecord(rows[0]);
  }

  async find(sessionId: string): Promise<RuntimeSessionRecord | null> {
    const { rows } = await this.run((manager) =>
      runSql<RuntimeSessionRow>(manager, 'SELECT * FROM runtime_sessions WHERE id = $1', [sessionId]),
    );
    return rows[0] === undefined ? null : toRecord(rows[0]);
  }

  async end(sessionId: string, at: Date): Promise<boolean> {
    const { rowCount } = await this.run((manager) =>
      runSql(
        manager,
        `UPDATE runtime_sessions SET status = 'ended', ended_at = $2 WHERE id = $1 AND status <> 'ended'`,
        [sessionId, at],
      ),
    );
    return rowCount > 0;
  }

  async beat(sessionIds: readonly string[], at: Date): Promise<void> {
    if (sessionIds.length === 0) return;
    await this.run((manager) =>
      runSql(
        manager,
        // GREATEST: a beat delayed behind a later one never moves the session's last beat back.
        `UPDATE runtime_sessions SET heartbeat_at = GREATEST(heartbeat_at, $2)
         WHERE id = ANY($1::text[]) AND status <> 'ended'`,
        [[...sessionIds], at],
      ),
    );
  }

  async endAbandoned(lastBeatBefore: Date, at: Date): Promise<AbandonedRuntimeSession[]> {
    const { rows } = await this.run((manager) =>
      runSql<RuntimeSessionRow>(
        manager,
        // Served by runtime_sessions_heartbeat_idx; sessions that never beat are not a process's to lose.
        `UPDATE runtime_sessions SET status = 'ended', ended_at = $2
         WHERE status <> 'ended' AND heartbeat_at IS NOT NULL AND heartbeat_at < $1
         RETURNING *`,
        [lastBeatBefore, at],
      ),
    );
    return rows.map(toRecord).map(({ id, scope, authorizationId }) => ({ id, scope, authorizationId }));
  }

  /** Single statements need no transaction of their own; on the pool each commits at once. */
  private async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await work(managerOf(this.dataSource, this.tx));
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}
