import { type Authorization } from '../authorization/authorization.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization } from './support/aggregate-loading.helper';
import { saveAuthorization, saveManualHandoff } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';
import { releaseSessionsQuietly } from './support/runtime-session.helper';

export interface CancelAuthorizationCommand {
  authorizationId: string;
  expectedVersion: number;
}

export type CancelAuthorizationDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'runtimeSessions'>;

/**
 * Cancels the case and closes its open manual handoffs with result `canceled`. Their interactive grants are
 * revoked before the commit, so a failure leaves everything as it was and the cancel can simply be retried.
 */
export class CancelAuthorizationUseCase {
  constructor(private readonly deps: CancelAuthorizationDeps) {}

  async execute(scope: TenantScope, command: CancelAuthorizationCommand): Promise<Authorization> {
    const { authorization, sessionIds } = await this.deps.unitOfWork.run(scope, async (tx) => {
      const loaded = await loadAuthorization(tx, command.authorizationId);
      loaded.assertVersion(command.expectedVersion);
      const now = this.deps.clock.now();
      loaded.cancel(authorizationContext(this.deps, now));

      const open = (await tx.manualHandoffs.listByAuthorization(loaded.id)).filter(
        (handoff) => handoff.currentState !== 'closed',
      );
      for (const handoff of open) {
        handoff.cancelForAuthorization(now);
        await tx.grants.revokeForSubject(handoff.id);
        await saveManualHandoff(tx, this.deps.ids, handoff);
      }
      await saveAuthorization(tx, this.deps.ids, loaded);
      return { authorization: loaded, sessionIds: open.map((handoff) => handoff.runtimeSessionId) };
    });
    await releaseSessionsQuietly(this.deps.runtimeSessions, sessionIds);
    return authorization;
  }
}
