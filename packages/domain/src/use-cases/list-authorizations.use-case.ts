import { type Authorization } from '../authorization/authorization.aggregate';
import { type AuthorizationStatus } from '../authorization/authorization.types';
import { type DomainPorts } from '../ports';
import { type Page } from '../ports/authorization.repository.port';
import { type TenantScope } from '../shared/scope';

export type ListAuthorizationsDeps = Pick<DomainPorts, 'unitOfWork' | 'clock'>;

export interface ListAuthorizationsCommand {
  status?: AuthorizationStatus;
  /** Only cases waiting on the payer past their decision due time (docs/decisions/0031-events-and-webhooks.md). */
  overdue?: boolean;
  limit: number;
  cursor?: string;
}

/** Newest first; limit and cursor are validated by the API (decision 0023). */
export class ListAuthorizationsUseCase {
  constructor(private readonly deps: ListAuthorizationsDeps) {}

  execute(scope: TenantScope, command: ListAuthorizationsCommand): Promise<Page<Authorization>> {
    const { overdue, ...query } = command;
    return this.deps.unitOfWork.run(scope, (tx) =>
      tx.authorizations.list(
        overdue === true ? { ...query, decisionOverdueAt: this.deps.clock.now() } : query,
      ),
    );
  }
}
