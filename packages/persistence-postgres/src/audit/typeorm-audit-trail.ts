import type { Environment } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';

/** One line of an organization's audit trail: a row of `audit_log`. */
export interface AuditTrailEntry {
  occurredAt: Date;
  environment: Environment;
  /** `api_key:<id>` for reads through the API, `access_grant:<id>` for a grant URL opened, … */
  actor: string;
  action: string;
  subjectType: string;
  subjectId: string;
  requestId: string | null;
  details: Record<string, unknown>;
}

export interface AuditTrailQuery {
  organizationId: string;
  /** Only what concerns this case: its own rows, and grants opened on it or on its manual handoffs. */
  authorizationId?: string;
  since?: Date;
  limit: number;
}

interface AuditTrailRow {
  occurred_at: Date;
  environment: Environment;
  actor: string;
  action: string;
  subject_type: string;
  subject_id: string;
  request_id: string | null;
  details: Record<string, unknown>;
}

/**
 * Reads an organization's audit trail from `audit_log`, oldest first (`pnpm admin audit`, decision 0035):
 * changes, reads of cases and files with an API key, and every grant URL opened (written with the opening,
 * actor `access_grant:<grant id>`, decision 0014).
 */
export class TypeOrmAuditTrail {
  constructor(private readonly dataSource: DataSource) {}

  async list(query: AuditTrailQuery): Promise<AuditTrailEntry[]> {
    const rows: AuditTrailRow[] = await this.dataSource.query(
      `SELECT a.occurred_at, a.environment, a.actor, a.action, a.subject_type, a.subject_id, a.request_id,
              a.details
       FROM audit_log a
       WHERE a.organization_id = $1 AND a.occurred_at >= $2
         AND ($3::text IS NULL OR a.subject_id = $3 OR a.details->>'authorizationId' = $3
              OR (a.subject_type = 'manual_handoff' AND a.subject_id IN (
                SELECT h.id FROM manual_handoffs h WHERE h.organization_id = $1 AND h.authorization_id = $3)))
       ORDER BY a.occurred_at, a.id
       LIMIT $4`,
      [query.organizationId, query.since ?? new Date(0), query.authorizationId ?? null, query.limit],
    );
    return rows.map((row) => ({
      occurredAt: row.occurred_at,
      environment: row.environment,
      actor: row.actor,
      action: row.action,
      subjectType: row.subject_type,
      subjectId: row.subject_id,
      requestId: row.request_id,
      details: row.details,
    }));
  }
}
