import { type Authorization } from '../authorization/authorization.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization } from './support/aggregate-loading.helper';
import { saveAuthorization } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';
import { WORKER_JOB_TYPES } from './support/worker-jobs';

export interface ConfirmAuthorizationCommand {
  authorizationId: string;
  expectedVersion: number;
  nextActionId: string | null | undefined;
}

export type ConfirmAuthorizationDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids'>;

/** advance_case or approve_submission; either way the case is now processing and the worker takes over. */
export class ConfirmAuthorizationUseCase {
  constructor(private readonly deps: ConfirmAuthorizationDeps) {}

  execute(scope: TenantScope, command: ConfirmAuthorizationCommand): Promise<Authorization> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await loadAuthorization(tx, command.authorizationId);
      authorization.assertVersion(command.expectedVersion);
      authorization.confirm(command.nextActionId, authorizationContext(this.deps));
      await saveAuthorization(tx, this.deps.ids, authorization);
      await tx.jobs.enqueue({ type: WORKER_JOB_TYPES.process, authorizationId: authorization.id });
      return authorization;
    });
  }
}
