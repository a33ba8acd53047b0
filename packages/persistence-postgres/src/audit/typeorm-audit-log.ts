import type { DomainEventEnvelope, TenantScope } from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import { insertStatement, rowTable, runSql, type SqlStatement } from '../unit-of-work/sql';
import { AuditLogEntity, type AuditLogRow } from './audit-log.entity';

const AUDIT_LOG = rowTable(AuditLogEntity);

export interface AuditEntry {
  scope: TenantScope;
  occurredAt: Date;
  actor: string;
  action: string;
  subjectType: string;
  subjectId: string;
  requestId?: string | null;
  /** Ids and codes only, never PHI. */
  details?: Record<string, unknown>;
}

/**
 * Appends to the append-only `audit_log` in the manager's transaction, so an audit row exists exactly when
 * the change it describes committed.
 */
export class TypeOrmAuditLog {
  constructor(private readonly manager: EntityManager) {}

  async append(entries: readonly AuditEntry[]): Promise<void> {
    const insert = this.appendStatement(entries);
    if (insert !== null) await runSql(this.manager, insert.sql, insert.parameters);
  }

  /** The INSERT that `append` runs (null for no entries), for a caller that sends it with other writes. */
  appendStatement(entries: readonly AuditEntry[]): SqlStatement | null {
    if (entries.length === 0) return null;
    const rows = entries.map(
      (entry) =>
        ({
          organization_id: entry.scope.organizationId,
          environment: entry.scope.environment,
          occurred_at: entry.occurredAt,
          actor: entry.actor,
          action: entry.action,
          subject_type: entry.subjectType,
          subject_id: entry.subjectId,
          request_id: entry.requestId ?? null,
          details: entry.details ?? {},
        }) as AuditLogRow,
    );
    return insertStatement(AUDIT_LOG, rows);
  }

  /** One audit row per domain event, what happened to which aggregate and for whom (null for no events). */
  eventsStatement(
    events: readonly DomainEventEnvelope[],
    who: { actor: string; requestId?: string | null },
  ): SqlStatement | null {
    return this.appendStatement(eventEntries(events, who));
  }
}

function eventEntries(
  events: readonly DomainEventEnvelope[],
  who: { actor: string; requestId?: string | null },
): AuditEntry[] {
  return events.map((event) => ({
    scope: { organizationId: event.organizationId, environment: event.environment },
    occurredAt: event.occurredAt,
    actor: who.actor,
    action: event.type,
    subjectType: event.aggregateType,
    subjectId: event.aggregateId,
    requestId: who.requestId ?? null,
    details: { eventId: event.id, ...event.payload },
  }));
}
