import type { DomainEventEnvelope, EventOutbox, TenantScope } from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import { insertStatement, rowTable, runSql, type SqlStatement } from '../unit-of-work/sql';
import { assertSameTenant } from '../unit-of-work/tenant-bound';
import { OutboxEventEntity, type OutboxEventRow } from './outbox-event.entity';

const OUTBOX = rowTable(OutboxEventEntity);

/** Appends domain events of ONE tenant in the manager's transaction, so they commit with the change. */
export class TypeOrmEventOutbox implements EventOutbox {
  constructor(
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
  ) {}

  async append(events: DomainEventEnvelope[]): Promise<void> {
    const insert = this.appendStatement(events);
    if (insert !== null) await runSql(this.manager, insert.sql, insert.parameters);
  }

  /** The INSERT that `append` runs (null for no events), for a caller that sends it with other writes. */
  appendStatement(events: readonly DomainEventEnvelope[]): SqlStatement | null {
    if (events.length === 0) return null;
    const rows = events.map((event): Omit<OutboxEventRow, 'sequence' | 'recorded_at' | 'published_at'> => {
      assertSameTenant(
        this.scope,
        { id: event.id, organizationId: event.organizationId, environment: event.environment },
        'event',
      );
      return {
        id: event.id,
        organization_id: event.organizationId,
        environment: event.environment,
        aggregate_type: event.aggregateType,
        aggregate_id: event.aggregateId,
        type: event.type,
        occurred_at: event.occurredAt,
        payload: event.payload,
      };
    });
    return insertStatement(OUTBOX, rows as OutboxEventRow[]);
  }
}
