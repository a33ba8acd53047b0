import type {
  AccessGrantLedger,
  AccessGrantOpening,
  AccessGrantRecord,
  TenantScope,
} from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import type { PostgresTransaction } from '../unit-of-work/postgres-transaction';
import { insertStatement, rowTable, runSql } from '../unit-of-work/sql';
import { tenantParameters } from '../unit-of-work/tenant-bound';
import {
  AccessGrantOpeningEntity,
  type AccessGrantOpeningRow,
  type AccessGrantRow,
} from './audit-log.entity';
import { TypeOrmAuditLog } from './typeorm-audit-log';

const ACCESS_GRANT_OPENINGS = rowTable(AccessGrantOpeningEntity);

const toRecord = (row: AccessGrantRow): AccessGrantRecord => ({
  id: row.id,
  scope: { organizationId: row.organization_id, environment: row.environment },
  kind: row.kind,
  subjectId: row.subject_id,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  createdAt: row.created_at,
});

/**
 * Storage for the grants adapter: issued access grants (never their URLs) and every opening, each opening of
 * a known grant also written to the audit log in the same transaction. On the pool, or inside the transaction
 * it is bound to (`on`): a grant issued or revoked by a command then commits or rolls back with it.
 */
export class TypeOrmAccessGrantStore implements AccessGrantLedger {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx?: PostgresTransaction,
  ) {}

  /** The same ledger inside `tx`. */
  on(tx: PostgresTransaction): TypeOrmAccessGrantStore {
    return new TypeOrmAccessGrantStore(this.dataSource, tx);
  }

  async record(grant: Omit<AccessGrantRecord, 'revokedAt'>): Promise<void> {
    await this.run((manager) =>
      runSql(
        manager,
        `INSERT INTO access_grants (organization_id, environment, id, kind, subject_id, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          ...tenantParameters(grant.scope),
          grant.id,
          grant.kind,
          grant.subjectId,
          grant.expiresAt,
          grant.createdAt,
        ],
      ),
    );
  }

  /**
   * By id alone: the caller holds a verified token naming the grant, not a tenant. Ids are random; should two
   * tenants ever share one, neither is returned rather than guessing.
   */
  async find(id: string): Promise<AccessGrantRecord | null> {
    const { rows } = await this.run((manager) =>
      runSql<AccessGrantRow>(manager, 'SELECT * FROM access_grants WHERE id = $1 LIMIT 2', [id]),
    );
    return rows.length === 1 && rows[0] !== undefined ? toRecord(rows[0]) : null;
  }

  /** Revokes the subject's grants that are still live; returns how many. Subject ids are globally unique. */
  async revokeForSubject(subjectId: string, now: Date): Promise<number> {
    const { rowCount } = await this.run((manager) =>
      runSql(
        manager,
        `UPDATE access_grants SET revoked_at = $2
         WHERE subject_id = $1 AND revoked_at IS NULL AND expires_at > $2`,
        [subjectId, now],
      ),
    );
    return rowCount;
  }

  /**
   * Audits one attempt to open a grant, whatever its outcome. An opening of a known grant is also an audit-log
   * entry of the grant's tenant; an invalid one has no tenant, so it is kept only among the openings.
   */
  async recordOpening(opening: AccessGrantOpening): Promise<void> {
    const { grant, outcome, client, openedAt } = opening;
    const scope: TenantScope | null = grant?.scope ?? null;
    const row = {
      organization_id: scope?.organizationId ?? null,
      environment: scope?.environment ?? null,
      grant_id: grant?.id ?? null,
      opened_at: openedAt,
      outcome,
      client_address: client.address,
      user_agent: client.userAgent,
    } as AccessGrantOpeningRow;
    await this.run(async (manager) => {
      const insert = insertStatement(ACCESS_GRANT_OPENINGS, [row]);
      await runSql(manager, insert.sql, insert.parameters);
      if (grant === null) return;
      await new TypeOrmAuditLog(manager).append([
        {
          scope: grant.scope,
          occurredAt: openedAt,
          actor: `access_grant:${grant.id}`,
          action: `access_grant.${outcome}`,
          subjectType: grant.kind,
          subjectId: grant.subjectId,
          details: { grantId: grant.id, clientAddress: client.address, userAgent: client.userAgent },
        },
      ]);
    });
  }

  private async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return this.tx !== undefined ? await work(this.tx.manager) : await this.dataSource.transaction(work);
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}
