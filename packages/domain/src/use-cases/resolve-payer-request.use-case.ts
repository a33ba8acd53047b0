import { type Authorization } from '../authorization/authorization.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization } from './support/aggregate-loading.helper';
import { saveAuthorization } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';
import { WORKER_JOB_TYPES } from './support/worker-jobs';

export interface ResolvePayerRequestCommand {
  authorizationId: string;
  /** Null when the caller sent no If-Match (the legacy endpoints make it optional, decision 0032). */
  expectedVersion: number | null;
  requestId: string;
  attachmentIds: string[];
  resolutionNote: string | null;
}

export type ResolvePayerRequestDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids'>;

/**
 * Answers the payer's request for more information with attachments already on the case and moves the case
 * on as confirming its current action would (decision 0032): the worker takes over.
 */
export class ResolvePayerRequestUseCase {
  constructor(private readonly deps: ResolvePayerRequestDeps) {}

  execute(scope: TenantScope, command: ResolvePayerRequestCommand): Promise<Authorization> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await loadAuthorization(tx, command.authorizationId);
      if (command.expectedVersion !== null) authorization.assertVersion(command.expectedVersion);
      authorization.resolvePayerRequest(
        {
          requestId: command.requestId,
          attachmentIds: command.attachmentIds,
          resolutionNote: command.resolutionNote,
        },
        authorizationContext(this.deps),
      );
      await saveAuthorization(tx, this.deps.ids, authorization);
      await tx.jobs.enqueue({ type: WORKER_JOB_TYPES.process, authorizationId: authorization.id });
      return authorization;
    });
  }
}
