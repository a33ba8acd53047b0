import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { saveAuthorization } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';

/** The failure a case gets when the worker gives its processing up before anything reached the payer. */
export const PROCESSING_ABANDONED_CODE = 'processing_retries_exhausted';

export type AbandonProcessingDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids'>;

/**
 * Ends a case whose processing the worker had to give up (its retries ran out, or its worker died on the final
 * attempt) as completed/failed, but only while the final submission boundary is not crossed: before it nothing
 * can have reached the payer; after it a submission may exist and the case must be reconciled, never failed.
 * A cancel or any other change since leaves it alone.
 */
export class AbandonProcessingUseCase {
  constructor(private readonly deps: AbandonProcessingDeps) {}

  async execute(
    scope: TenantScope,
    command: { authorizationId: string; reason: string },
  ): Promise<'failed' | 'skipped'> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await tx.authorizations.findById(command.authorizationId);
      if (authorization?.status !== 'processing' || authorization.finalBoundaryCrossedAt !== null) {
        return 'skipped';
      }
      authorization.fail(
        {
          code: PROCESSING_ABANDONED_CODE,
          message: 'Processing stopped after repeated failures; nothing was submitted to the payer.',
          details: { reason: command.reason },
        },
        authorizationContext(this.deps),
      );
      await saveAuthorization(tx, this.deps.ids, authorization);
      return 'failed';
    });
  }
}
