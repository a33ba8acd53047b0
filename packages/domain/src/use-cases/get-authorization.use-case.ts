import { type Authorization } from '../authorization/authorization.aggregate';
import { type DomainPorts } from '../ports';
import { type AuthorizationUnchanged } from '../ports/authorization.repository.port';
import { type TenantScope } from '../shared/scope';
import { authorizationNotFound, loadAuthorization } from './support/aggregate-loading.helper';

export type GetAuthorizationDeps = Pick<DomainPorts, 'unitOfWork'>;

export class GetAuthorizationUseCase {
  constructor(private readonly deps: GetAuthorizationDeps) {}

  execute(scope: TenantScope, query: { authorizationId: string }): Promise<Authorization> {
    return this.deps.unitOfWork.run(scope, (tx) => loadAuthorization(tx, query.authorizationId));
  }

  /** The authorization, or only that it is still at `knownVersion` (AuthorizationRepository.findIfChanged). */
  executeIfChanged(
    scope: TenantScope,
    query: { authorizationId: string; knownVersion: number },
  ): Promise<Authorization | AuthorizationUnchanged> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const found = await tx.authorizations.findIfChanged(query.authorizationId, query.knownVersion);
      if (found === null) throw authorizationNotFound(query.authorizationId);
      return found;
    });
  }
}
