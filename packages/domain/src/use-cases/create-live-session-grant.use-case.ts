import { type DomainPorts } from '../ports';
import { type IssuedGrant } from '../ports/grant-issuer.port';
import { DomainError } from '../shared/domain-error';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization } from './support/aggregate-loading.helper';

export const LIVE_SESSION_GRANT_TTL_MS = 5 * 60 * 1000;

export type CreateLiveSessionGrantDeps = Pick<
  DomainPorts,
  'unitOfWork' | 'clock' | 'grantIssuer' | 'runtimeSessions'
>;

/** A read-only view of the current live session; never interactive (that needs a manual handoff). */
export class CreateLiveSessionGrantUseCase {
  constructor(private readonly deps: CreateLiveSessionGrantDeps) {}

  async execute(scope: TenantScope, command: { authorizationId: string }): Promise<IssuedGrant> {
    const authorization = await this.deps.unitOfWork.run(scope, (tx) =>
      loadAuthorization(tx, command.authorizationId),
    );
    const liveSession = await this.deps.runtimeSessions.liveView(scope, authorization.id);
    if (liveSession === null || liveSession.status === 'ended') {
      throw new DomainError('live_session_not_available', 'The authorization has no live session to view.', {
        authorizationId: authorization.id,
      });
    }
    return this.deps.grantIssuer.issue({
      scope,
      kind: 'live_session',
      subjectId: authorization.id,
      expiresAt: new Date(this.deps.clock.now().getTime() + LIVE_SESSION_GRANT_TTL_MS),
    });
  }
}
