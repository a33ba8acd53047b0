import type { GrantKind, TenantScope } from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import { TransactionContext } from '../unit-of-work/transaction-context';
import { runSql } from '../unit-of-work/sql';
import { tenantParameters } from '../unit-of-work/tenant-bound';
import type { AccessGrantOpeningOutcome, AccessGrantRow } from './audit-log.entity';
import { TypeOrmAuditLog } from './typeorm-audit-log';

export interface AccessGrantRecord {
  id: string;
  scope: TenantScope;
  kind: GrantKind;
  subjectId: string;
  expiresAt: Date;
  revokedAt: Date | null;
  createdAt: Date;
}

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
 * Storage for the grants adapter: issued access grants (never their URLs) and every opening, each opening
 * also written to the audit log in the same transaction. Joins the ambient transaction when there is one.
 */
export class TypeOrmAccessGrantStore {
  constructor(private readonly dataSource: DataSource) {}

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

  async find(scope: TenantScope, id: string): Promise<AccessGrantRecord | null> {
    const { rows } = await this.run((manager) =>
      runSql<AccessGrantRow>(
        manager,
        'SELECT * FROM access_grants WHERE organization_id = $1 AND environment = $2 AND id = $3',
        [...tenantParameters(scope), id],
      ),
    );
    return rows[0] === undefined ? null : toRecord(rows[0]);
  }

  /** Revokes the subject's grants that are still live; returns how many. */
  async revokeForSubject(scope: TenantScope, subjectId: string, now: Date): Promise<number> {
    const { rowCount } = await this.run((manager) =>
      runSql(
        manager,
        `UPDATE access_grants SET revoked_at = $4
         WHERE organization_id = $1 AND environment = $2 AND subject_id = $3 AND revoked_at IS NULL AND expires_at > $4`,
        [...tenantParameters(scope), subjectId, now],
      ),
    );
    return rowCount;
  }

  /** Audits one attempt to open a grant, whatever its outcome. */
  async recordOpening(
    grant: Pick<AccessGrantRecord, 'id' | 'scope' | 'kind' | 'subjectId'>,
    outcome: AccessGrantOpeningOutcome,
    openedAt: Date,
  ): Promise<void> {
    await this.run(async (manager) => {
      await runSql(
        manager,
        `INSERT INTO access_grant_openings (organization_id, environment, grant_id, opened_at, outcome)
         VALUES ($1, $2, $3, $4, $5)`,
        [...tenantParameters(grant.scope), grant.id, openedAt, outcome],
      );
      await new TypeOrmAuditLog(manager).append([
        {
          scope: grant.scope,
          occurredAt: openedAt,
          actor: `access_grant:${grant.id}`,
          action: `access_grant.${outcome}`,
          subjectType: grant.kind,
          subjectId: grant.subjectId,
          details: { grantId: grant.id },
        },
      ]);
    });
  }

  private async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const ambient = TransactionContext.current(this.dataSource);
    try {
      return ambient !== undefined ? await work(ambient.manager) : await this.dataSource.transaction(work);
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}
