import type { DomainEventEnvelope, DomainEventLog, TenantScope } from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import { assertSameTenant } from '../unit-of-work/tenant-bound';
import { writeSql } from '../unit-of-work/write-batch';
import { TypeOrmAuditLog } from './typeorm-audit-log';

/**
 * The domain's events of ONE tenant, recorded as rows of the append-only audit log in the manager's transaction
 * (docs/decisions/0050-domain-events-in-the-audit-log.md): each row names the event, its aggregate, who caused
 * it and the request, so it commits exactly when the change it describes does.
 */
export class TypeOrmDomainEventLog implements DomainEventLog {
  private readonly audit: TypeOrmAuditLog;

  constructor(
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
    private readonly who: { actor: string; requestId: string | null },
  ) {
    this.audit = new TypeOrmAuditLog(manager);
  }

  async append(events: DomainEventEnvelope[]): Promise<void> {
    for (const event of events) {
      assertSameTenant(
        this.scope,
        { id: event.id, organizationId: event.organizationId, environment: event.environment },
        'event',
      );
    }
    const insert = this.audit.eventsStatement(events, this.who);
    if (insert !== null) await writeSql(this.manager, insert);
  }
}
