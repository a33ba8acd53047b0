import type {
  AccessGrantLedger,
  GrantIssuer,
  JobQueue,
  TenantScope,
  TransactionalPorts,
  UnitOfWork,
} from '@prior-auth/domain';
import type { PgBoss } from 'pg-boss';
import type { DataSource, EntityManager } from 'typeorm';
import { TypeOrmAccessGrantStore } from '../audit/typeorm-access-grant-store';
import { TypeOrmDomainEventLog } from '../audit/typeorm-domain-event-log';
import { TypeOrmAuthorizationRepository } from '../authorization/typeorm-authorization.repository';
import { translateDatabaseError } from '../database/database-errors';
import { TypeOrmFileRepository } from '../file/typeorm-file.repository';
import { TypeOrmManualHandoffRepository } from '../manual-handoff/typeorm-manual-handoff.repository';
import { TypeOrmResourceEventLog } from '../events/typeorm-resource-event-log';
import { fanOutWebhookDeliveries } from '../webhooks/webhook-delivery-fan-out';
import { TypeOrmWebhookEndpointRepository } from '../webhooks/typeorm-webhook-endpoint.repository';
import { PgBossJobQueue } from '../outbox/pg-boss-job-queue';
import { TypeOrmPayerEvidenceRepository } from '../payer-evidence/typeorm-payer-evidence.repository';
import type { KeysetCursors } from '../pagination/keyset-cursor';
import type { PostgresTransaction, TransactionMetadata } from './postgres-transaction';

export interface TypeOrmUnitOfWorkOptions {
  /** Signs and checks list cursors. */
  cursors: KeysetCursors;
  /**
   * The job queue (decision 0016). Absent only for code that never enqueues (repository tests, read-only
   * tools): an enqueue then fails, and with it the change, rather than committing without its job.
   */
  jobBoss?: PgBoss;
  /**
   * The grant service on a ledger bound to the transaction, so grants revoked by a close commit with it.
   * Absent only for code that never touches grants: a grant call then fails, and with it the change.
   */
  grants?: (ledger: AccessGrantLedger) => GrantIssuer;
  /** Audit actor when the transaction names none (for example `worker`). */
  defaultActor?: string;
}

const unconfigured = (what: string) => (): Promise<never> =>
  Promise.reject(new Error(`this unit of work has no ${what} configured`));

const noJobQueue: JobQueue = { enqueue: unconfigured('job queue (jobBoss)') };

const noGrants: GrantIssuer = {
  issue: unconfigured('grant service (grants)'),
  revokeForSubject: unconfigured('grant service (grants)'),
};

/**
 * The domain's UnitOfWork on PostgreSQL. `run` opens a transaction and hands `work` repositories, the event logs,
 * job queue and grant service bound to that transaction and to ONE tenant; `within(tx)` is the same unit of work
 * inside a transaction someone else opened and handed over. The domain's events are written to the audit log.
 * Everything commits together; a throw rolls all of it back. Connection failures surface as
 * DatabaseUnavailableError (retryable).
 */
export class TypeOrmUnitOfWork implements UnitOfWork {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: TypeOrmUnitOfWorkOptions,
  ) {}

  run<T>(scope: TenantScope, work: (tx: TransactionalPorts) => Promise<T>): Promise<T> {
    return translated(() => this.dataSource.transaction((manager) => work(this.ports(manager, scope))));
  }

  /**
   * Units of work inside `tx`. `direct` (an API command): they run on its connection with no savepoint round
   * trips, and whoever opened `tx` rolls all of it back on any failure (docs/performance.md). `savepoint`:
   * each one rolls back to its own savepoint when it fails, and the transaction goes on.
   */
  within(tx: PostgresTransaction, join: 'direct' | 'savepoint' = 'direct'): UnitOfWork {
    return {
      run: (scope, work) =>
        translated(() =>
          join === 'direct'
            ? work(this.ports(tx.manager, scope, tx.metadata))
            : tx.manager.transaction((manager) => work(this.ports(manager, scope, tx.metadata))),
        ),
    };
  }

  /** The scope-bound ports on `manager`; exposed for adapters that manage the transaction themselves. */
  ports(manager: EntityManager, scope: TenantScope, metadata: TransactionMetadata = {}): TransactionalPorts {
    const actor = metadata.actor ?? this.options.defaultActor ?? 'system';
    return {
      authorizations: new TypeOrmAuthorizationRepository(manager, scope, this.options.cursors),
      files: new TypeOrmFileRepository(manager, scope, this.options.cursors),
      manualHandoffs: new TypeOrmManualHandoffRepository(manager, scope),
      payerEvidence: new TypeOrmPayerEvidenceRepository(manager, scope),
      domainEvents: new TypeOrmDomainEventLog(manager, scope, {
        actor,
        requestId: metadata.requestId ?? null,
      }),
      events: new TypeOrmResourceEventLog(manager, scope, this.options.cursors, (events, insert) =>
        fanOutWebhookDeliveries(manager, scope, this.options.jobBoss, events, insert),
      ),
      webhookEndpoints: new TypeOrmWebhookEndpointRepository(manager, scope, this.options.cursors),
      jobs:
        this.options.jobBoss === undefined
          ? noJobQueue
          : new PgBossJobQueue(this.options.jobBoss, manager, scope),
      grants:
        this.options.grants === undefined
          ? noGrants
          : this.options.grants(new TypeOrmAccessGrantStore(this.dataSource, { manager, metadata })),
    };
  }
}

async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw translateDatabaseError(error);
  }
}
