import type { JobQueue, TenantScope, TransactionalPorts, UnitOfWork } from '@prior-auth/domain';
import type { PgBoss } from 'pg-boss';
import type { DataSource, EntityManager } from 'typeorm';
import { TypeOrmAuditLog } from '../audit/typeorm-audit-log';
import { TypeOrmAuthorizationRepository } from '../authorization/typeorm-authorization.repository';
import { translateDatabaseError } from '../database/database-errors';
import { TypeOrmFileRepository } from '../file/typeorm-file.repository';
import { TypeOrmManualHandoffRepository } from '../manual-handoff/typeorm-manual-handoff.repository';
import { TypeOrmEventOutbox } from '../outbox/typeorm-event-outbox';
import { TypeOrmResourceEventLog } from '../events/typeorm-resource-event-log';
import { fanOutWebhookDeliveries } from '../webhooks/webhook-delivery-fan-out';
import { TypeOrmWebhookEndpointRepository } from '../webhooks/typeorm-webhook-endpoint.repository';
import { PgBossJobQueue } from '../outbox/pg-boss-job-queue';
import { TypeOrmPayerEvidenceRepository } from '../payer-evidence/typeorm-payer-evidence.repository';
import type { KeysetCursors } from '../pagination/keyset-cursor';
import { chainStatements, runSql } from './sql';
import { TransactionContext, type TransactionMetadata } from './transaction-context';

export interface TypeOrmUnitOfWorkOptions {
  /** Signs and checks list cursors. */
  cursors: KeysetCursors;
  /**
   * The job queue (decision 0016). Absent only for code that never enqueues (repository tests, read-only
   * tools): an enqueue then fails, and with it the change, rather than committing without its job.
   */
  jobBoss?: PgBoss;
  /** Audit actor when the ambient transaction names none (for example `worker`). */
  defaultActor?: string;
}

const noJobQueue: JobQueue = {
  enqueue: () => Promise.reject(new Error('this unit of work has no job queue (jobBoss) configured')),
};

/**
 * The domain's UnitOfWork on PostgreSQL. `run` opens a transaction, or joins the ambient one
 * (`TransactionContext`) directly or through a savepoint, as it asks, and hands `work` repositories, outbox and job queue bound to
 * that transaction and to ONE tenant. Events appended to the outbox are also written to the audit log.
 * Everything commits together; a throw rolls all of it back. Connection failures surface as
 * DatabaseUnavailableError (retryable).
 */
export class TypeOrmUnitOfWork implements UnitOfWork {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: TypeOrmUnitOfWorkOptions,
  ) {}

  async run<T>(scope: TenantScope, work: (tx: TransactionalPorts) => Promise<T>): Promise<T> {
    const ambient = TransactionContext.current(this.dataSource);
    try {
      if (ambient?.join === 'direct') return await work(this.ports(ambient.manager, scope, ambient.metadata));
      if (ambient !== undefined) {
        // The ambient manager is already in a transaction, so this nests as a savepoint.
        return await ambient.manager.transaction((manager) =>
          work(this.ports(manager, scope, ambient.metadata)),
        );
      }
      // Ambient for the work's duration: ports outside TransactionalPorts (grants, runtime sessions) join it.
      return await this.dataSource.transaction((manager) =>
        TransactionContext.within(
          { dataSource: this.dataSource, manager, metadata: {}, join: 'savepoint' },
          () => work(this.ports(manager, scope, {})),
        ),
      );
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }

  /** The scope-bound ports on `manager`; exposed for adapters that manage the transaction themselves. */
  ports(manager: EntityManager, scope: TenantScope, metadata: TransactionMetadata = {}): TransactionalPorts {
    const outbox = new TypeOrmEventOutbox(manager, scope);
    const audit = new TypeOrmAuditLog(manager);
    const actor = metadata.actor ?? this.options.defaultActor ?? 'system';
    return {
      authorizations: new TypeOrmAuthorizationRepository(manager, scope, this.options.cursors),
      files: new TypeOrmFileRepository(manager, scope, this.options.cursors),
      manualHandoffs: new TypeOrmManualHandoffRepository(manager, scope),
      payerEvidence: new TypeOrmPayerEvidenceRepository(manager, scope),
      outbox: {
        // The outbox rows and their audit rows in one round trip.
        append: async (events) => {
          const outboxInsert = outbox.appendStatement(events);
          const auditInsert = audit.eventsStatement(events, { actor, requestId: metadata.requestId ?? null });
          if (outboxInsert === null || auditInsert === null) return;
          const both = chainStatements([outboxInsert, auditInsert]);
          await runSql(manager, both.sql, both.parameters);
        },
      },
      events: new TypeOrmResourceEventLog(manager, scope, this.options.cursors, (events, insert) =>
        fanOutWebhookDeliveries(manager, scope, this.options.jobBoss, events, insert),
      ),
      webhookEndpoints: new TypeOrmWebhookEndpointRepository(manager, scope, this.options.cursors),
      jobs:
        this.options.jobBoss === undefined
          ? noJobQueue
          : new PgBossJobQueue(this.options.jobBoss, manager, scope),
    };
  }
}
