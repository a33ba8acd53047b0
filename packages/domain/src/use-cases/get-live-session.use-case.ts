import { type Authorization } from '../authorization/authorization.aggregate';
import { type DomainPorts } from '../ports';
import { type LiveSessionView } from '../ports/runtime-sessions.port';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization } from './support/aggregate-loading.helper';

export type GetLiveSessionDeps = Pick<DomainPorts, 'unitOfWork' | 'runtimeSessions'>;

/** Side-effect free: reads the live session and mints no capability (spec, "Live session"). */
export class GetLiveSessionUseCase {
  constructor(private readonly deps: GetLiveSessionDeps) {}

  async execute(
    scope: TenantScope,
    query: { authorizationId: string },
  ): Promise<{ authorization: Authorization; liveSession: LiveSessionView | null }> {
    const authorization = await this.deps.unitOfWork.run(scope, (tx) =>
      loadAuthorization(tx, query.authorizationId),
    );
    return { authorization, liveSession: await this.deps.runtimeSessions.liveView(scope, authorization.id) };
  }
}
