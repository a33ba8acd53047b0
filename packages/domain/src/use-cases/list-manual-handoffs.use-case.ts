import { type Authorization } from '../authorization/authorization.aggregate';
import { type ManualHandoff } from '../manual-handoff/manual-handoff.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization } from './support/aggregate-loading.helper';

export type ListManualHandoffsDeps = Pick<DomainPorts, 'unitOfWork'>;

export class ListManualHandoffsUseCase {
  constructor(private readonly deps: ListManualHandoffsDeps) {}

  execute(
    scope: TenantScope,
    query: { authorizationId: string },
  ): Promise<{ authorization: Authorization; handoffs: ManualHandoff[] }> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await loadAuthorization(tx, query.authorizationId);
      return { authorization, handoffs: await tx.manualHandoffs.listByAuthorization(authorization.id) };
    });
  }
}
