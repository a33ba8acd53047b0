import { type Authorization } from '../authorization/authorization.aggregate';
import { type DomainPorts } from '../ports';
import { type AuthorizationListQuery, type Page } from '../ports/authorization.repository.port';
import { type TenantScope } from '../shared/scope';

export type ListAuthorizationsDeps = Pick<DomainPorts, 'unitOfWork'>;

/** Newest first; limit and cursor are validated by the API (decision 6). */
export class ListAuthorizationsUseCase {
  constructor(private readonly deps: ListAuthorizationsDeps) {}

  execute(scope: TenantScope, query: AuthorizationListQuery): Promise<Page<Authorization>> {
    return this.deps.unitOfWork.run(scope, (tx) => tx.authorizations.list(query));
  }
}
