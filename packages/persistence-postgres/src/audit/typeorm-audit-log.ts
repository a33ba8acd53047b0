import type { DomainEventEnvelope, TenantScope } from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import {
  insertManyStatement,
  insertStatement,
  rowTable,
  runSql,
  type SqlStatement,
} from '../unit-of-work/sql';
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

  /**
   * One statement whose text is the same for any number of entries (the read audit writes batches of every
   * size), prepared on the pool's connections when the manager has no transaction.
   */
  async append(entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const insert = insertManyStatement(AUDIT_LOG, auditRows(entries));
    await runSql(this.manager, insert.sql, insert.parameters, { prepared: true });
  }

  /**
   * An INSERT of `entries` (null for none) for a caller that sends it with other writes: a `VALUES` list, as
   * the other writes of a command are, whose text is made once per number of rows (a command writes a few).
   */
  appendStatement(entries: readonly AuditEntry[]): SqlStatement | null {
    if (entries.length === 0) return null;
    return insertStatement(AUDIT_LOG, auditRows(entries));
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

const auditRows = (entries: readonly AuditEntry[]): AuditLogRow[] =>
  entries.map(
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
