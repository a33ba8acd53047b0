import { type TenantScope } from '../shared/scope';
import { type AuthorizationRepository } from './authorization.repository.port';
import { type DomainEventLog } from './domain-event-log.port';
import { type FileRepository } from './file.repository.port';
import { type GrantIssuer } from './grant-issuer.port';
import { type JobQueue } from './job-queue.port';
import { type ManualHandoffRepository } from './manual-handoff.repository.port';
import { type PayerEvidenceRepository } from './payer-evidence.repository.port';
import { type ResourceEventLog } from './resource-event-log.port';
import { type WebhookEndpointRepository } from './webhook-endpoint.repository.port';

/** Everything written inside one transaction, bound to one tenant. */
export interface TransactionalPorts {
  authorizations: AuthorizationRepository;
  files: FileRepository;
  manualHandoffs: ManualHandoffRepository;
  payerEvidence: PayerEvidenceRepository;
  /** The aggregates' own events, recorded with their changes (docs/decisions/0050-domain-events-in-the-audit-log.md). */
  domainEvents: DomainEventLog;
  /** The integrators' events (docs/decisions/0031-events-and-webhooks.md). */
  events: ResourceEventLog;
  webhookEndpoints: WebhookEndpointRepository;
  jobs: JobQueue;
  /** Access grants, recorded in this transaction: a close revokes its grants and commits (or not) with them. */
  grants: GrantIssuer;
}

/**
 * Runs `work` atomically for one tenant: everything it saved, appended and enqueued commits together, or
 * nothing does when it throws.
 */
export interface UnitOfWork {
  run<T>(scope: TenantScope, work: (tx: TransactionalPorts) => Promise<T>): Promise<T>;
}
