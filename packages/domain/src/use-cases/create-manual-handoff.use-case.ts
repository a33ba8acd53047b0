import { type Authorization } from '../authorization/authorization.aggregate';
import { ManualHandoff } from '../manual-handoff/manual-handoff.aggregate';
import { type DomainPorts } from '../ports';
import { DomainError } from '../shared/domain-error';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization } from './support/aggregate-loading.helper';
import { saveManualHandoff } from './support/aggregate-persistence.helper';
import { plainContext } from './support/authorization-context.factory';
import { releaseSessionsQuietly } from './support/runtime-session.helper';
import { WORKER_JOB_TYPES } from './support/worker-jobs';

export interface CreateManualHandoffCommand {
  authorizationId: string;
  /** The authorization's version (the handoff does not exist yet). */
  expectedVersion: number;
}

export interface ManualHandoffWithAuthorization {
  handoff: ManualHandoff;
  authorization: Authorization;
}

export type CreateManualHandoffDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'runtimeSessions'>;

/**
 * Hands the open payer interaction to a human: allowed only while the authorization's next action is
 * complete_payer_interaction resolved by a manual handoff, and only once per interaction lineage. The handoff
 * is offered and activated on a freshly provisioned runtime session in the same transaction, so callers
 * never see a handoff without a session; the expiry job is enqueued with it.
 */
export class CreateManualHandoffUseCase {
  constructor(private readonly deps: CreateManualHandoffDeps) {}

  async execute(
    scope: TenantScope,
    command: CreateManualHandoffCommand,
  ): Promise<ManualHandoffWithAuthorization> {
    let provisioned: string | null = null;
    try {
      return await this.deps.unitOfWork.run(scope, async (tx) => {
        const authorization = await loadAuthorization(tx, command.authorizationId);
        authorization.assertVersion(command.expectedVersion);
        const action = authorization.nextAction;
        if (action?.type !== 'complete_payer_interaction' || action.resolution?.kind !== 'manual_handoff') {
          throw new DomainError(
            'manual_handoff_not_allowed',
            'The authorization has no payer interaction for a human to complete.',
            { status: authorization.status, nextActionType: action?.type ?? null },
          );
        }
        const owner = await tx.manualHandoffs.findOpenByInteraction(authorization.id, action.id);
        if (owner !== null) {
          throw new DomainError(
            'manual_handoff_not_allowed',
            'A manual handoff already owns this payer interaction.',
            {
              manualHandoffId: owner.id,
            },
          );
        }

        const ctx = plainContext<'mh' | 'rec'>(this.deps);
        const handoff = ManualHandoff.create(
          {
            organizationId: scope.organizationId,
            environment: scope.environment,
            authorizationId: authorization.id,
            interactionActionId: action.id,
          },
          ctx,
        );
        const session = await this.deps.runtimeSessions.provision(scope, authorization.id);
        // An adopted session outlives a handoff that is not saved: only a fresh one is released on failure.
        provisioned = session.adopted === true ? null : session.sessionId;
        handoff.activate(session.sessionId, ctx.now);
        await saveManualHandoff(tx, this.deps.ids, handoff);
        await tx.jobs.enqueue({
          type: WORKER_JOB_TYPES.expireHandoff,
          authorizationId: authorization.id,
          runAt: handoff.expiresAt,
          payload: { manualHandoffId: handoff.id },
        });
        return { handoff, authorization };
      });
    } catch (error) {
      // Nothing was committed, so nobody can ever use the session.
      await releaseSessionsQuietly(this.deps.runtimeSessions, [provisioned]);
      throw error;
    }
  }
}
