import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { type ManualHandoffWithAuthorization } from './create-manual-handoff.use-case';
import { loadAuthorization, loadManualHandoff } from './support/aggregate-loading.helper';

export type GetManualHandoffDeps = Pick<DomainPorts, 'unitOfWork'>;

/** The handoff with its authorization, which the ManualHandoff result projects ({id, version, status}). */
export class GetManualHandoffUseCase {
  constructor(private readonly deps: GetManualHandoffDeps) {}

  execute(
    scope: TenantScope,
    query: { authorizationId: string; manualHandoffId: string },
  ): Promise<ManualHandoffWithAuthorization> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await loadAuthorization(tx, query.authorizationId);
      const handoff = await loadManualHandoff(tx, query.authorizationId, query.manualHandoffId);
      return { handoff, authorization };
    });
  }
}
