import { type TenantScope } from '../shared/scope';
import { type AuthorizationRepository } from './authorization.repository.port';
import { type EventOutbox } from './event-outbox.port';
import { type FileRepository } from './file.repository.port';
import { type JobQueue } from './job-queue.port';
import { type ManualHandoffRepository } from './manual-handoff.repository.port';

/** Everything written inside one transaction, bound to one tenant. */
export interface TransactionalPorts {
  authorizations: AuthorizationRepository;
  files: FileRepository;
  manualHandoffs: ManualHandoffRepository;
  outbox: EventOutbox;
  jobs: JobQueue;
}

/**
 * Runs `work` atomically for one tenant: everything it saved, appended and enqueued commits together, or
 * nothing does when it throws.
 */
export interface UnitOfWork {
  run<T>(scope: TenantScope, work: (tx: TransactionalPorts) => Promise<T>): Promise<T>;
}
