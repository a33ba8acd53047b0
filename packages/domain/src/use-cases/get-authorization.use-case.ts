import { type Authorization } from '../authorization/authorization.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization } from './support/aggregate-loading.helper';

export type GetAuthorizationDeps = Pick<DomainPorts, 'unitOfWork'>;

export class GetAuthorizationUseCase {
  constructor(private readonly deps: GetAuthorizationDeps) {}

  execute(scope: TenantScope, query: { authorizationId: string }): Promise<Authorization> {
    return this.deps.unitOfWork.run(scope, (tx) => loadAuthorization(tx, query.authorizationId));
  }
}
