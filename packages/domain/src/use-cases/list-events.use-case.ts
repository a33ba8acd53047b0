import { type ResourceEvent } from '../events/resource-event';
import { type DomainPorts } from '../ports';
import { type Page } from '../ports/authorization.repository.port';
import { type ResourceEventQuery } from '../ports/resource-event-log.port';
import { type TenantScope } from '../shared/scope';

export type ListEventsDeps = Pick<DomainPorts, 'unitOfWork'>;

/** The tenant's events, newest first (docs/decisions/0031-events-and-webhooks.md). */
export class ListEventsUseCase {
  constructor(private readonly deps: ListEventsDeps) {}

  execute(scope: TenantScope, query: ResourceEventQuery): Promise<Page<ResourceEvent>> {
    return this.deps.unitOfWork.run(scope, (tx) => tx.events.list(query));
  }
}
