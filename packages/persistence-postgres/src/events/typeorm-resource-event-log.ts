import type {
  Page,
  ResourceEvent,
  ResourceEventLog,
  ResourceEventQuery,
  TenantScope,
} from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { assertPageLimit, type CursorBinding, type KeysetCursors } from '../pagination/keyset-cursor';
import { insertStatement, rowTable, runSql, type SqlStatement } from '../unit-of-work/sql';
import { assertSameTenant, tenantParameters } from '../unit-of-work/tenant-bound';
import {
  READABLE_EVENTS,
  ResourceEventEntity,
  type ReadableEventRow,
  type ResourceEventRow,
} from './resource-event.entity';
import { encodeSnapshot, toResourceEvent, toResourceEventRow } from './resource-event.mapper';

const EVENTS = rowTable(ResourceEventEntity);

/**
 * The events of ONE tenant on one EntityManager (the unit of work's transaction): appended with the change,
 * listed newest first by `sequence` with a signed cursor bound to the tenant and the filters.
 */
export class TypeOrmResourceEventLog implements ResourceEventLog {
  constructor(
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
    private readonly cursors: KeysetCursors,
    /**
     * Writes the events' INSERT together with what must accompany it (the webhook fan-out), in the same
     * transaction; by default the INSERT alone.
     */
    private readonly write: (events: ResourceEvent[], insert: SqlStatement) => Promise<unknown> = (
      _events,
      insert,
    ) => runSql(manager, insert.sql, insert.parameters),
  ) {}

  async append(events: ResourceEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const event of events) {
      assertSameTenant(
        this.scope,
        { id: event.id, organizationId: event.organizationId, environment: event.environment },
        'event',
      );
    }
    // The events of one save share one snapshot (a new case's are two), stored once (decision 0049): the last
    // of them holds it, so retention, oldest first, never deletes it before the events that name it.
    const holders = new Map<ResourceEvent['snapshot'], ResourceEvent>();
    for (const event of events) holders.set(event.snapshot, event);
    const rows = events.map((event) => {
      const holder = holders.get(event.snapshot)!;
      return toResourceEventRow(
        event,
        holder === event ? encodeSnapshot(event.snapshot) : { heldBy: holder.id },
      );
    });
    await this.write(events, insertStatement(EVENTS, rows as ResourceEventRow[]));
  }

  async list(query: ResourceEventQuery): Promise<Page<ResourceEvent>> {
    assertPageLimit(query.limit);
    const binding: CursorBinding = {
      resource: 'events',
      scope: this.scope,
      filters: { type: query.type ?? null, authorizationId: query.authorizationId ?? null },
    };
    const after = query.cursor === undefined ? null : this.cursors.decodeAfterId(binding, query.cursor);
    const parameters: unknown[] = [...tenantParameters(this.scope)];
    let sql = `SELECT * FROM ${READABLE_EVENTS} WHERE organization_id = $1 AND environment = $2`;
    if (query.type !== undefined) {
      parameters.push(query.type);
      sql += ` AND type = $${parameters.length}`;
    }
    if (query.authorizationId !== undefined) {
      parameters.push(query.authorizationId);
      sql += ` AND authorization_id = $${parameters.length}`;
    }
    if (after !== null) {
      parameters.push(after);
      sql += ` AND sequence < $${parameters.length}`;
    }
    parameters.push(query.limit + 1);
    sql += ` ORDER BY sequence DESC LIMIT $${parameters.length}`;
    const { rows } = await runSql<ReadableEventRow>(this.manager, sql, parameters);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const nextCursor =
      rows.length > query.limit && last !== undefined
        ? this.cursors.encodeAfterId(binding, String(last.sequence))
        : null;
    return { items: page.map(toResourceEvent), nextCursor };
  }
}

/** Events are kept this long at least (docs/decisions/0031-events-and-webhooks.md: ≥ 30 days). */
export const EVENT_RETENTION_DAYS = 30;

/** Deletes events past the retention, in batches; run by one worker of the cluster on a schedule. */
export class PostgresEventRetention {
  constructor(
    private readonly dataSource: DataSource,
    private readonly retentionDays = EVENT_RETENTION_DAYS,
  ) {}

  async purgeExpired(now: Date, batchSize = 1_000): Promise<number> {
    const cutoff = new Date(now.getTime() - this.retentionDays * 24 * 60 * 60 * 1000);
    let total = 0;
    for (;;) {
      const { rowCount } = await runSql(
        this.dataSource.manager,
        // Oldest first: an event holding its save's snapshot goes with or after the events that name it.
        `DELETE FROM events WHERE sequence = ANY (ARRAY(
           SELECT sequence FROM events WHERE created_at < $1 ORDER BY sequence LIMIT $2))`,
        [cutoff, batchSize],
      );
      total += rowCount;
      if (rowCount < batchSize) return total;
    }
  }
}
