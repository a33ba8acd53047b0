import { manualHandoffInvalidState } from '../manual-handoff/manual-handoff-state.state-machine';
import { type DomainPorts } from '../ports';
import { type IssuedGrant } from '../ports/grant-issuer.port';
import { DomainError } from '../shared/domain-error';
import { type TenantScope } from '../shared/scope';
import { loadManualHandoff } from './support/aggregate-loading.helper';

/** Short on purpose: the URL is a bearer capability, re-minted whenever the operator needs to open it again. */
export const MANUAL_HANDOFF_GRANT_TTL_MS = 5 * 60 * 1000;

export type CreateManualHandoffAccessGrantDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'grantIssuer'>;

/** Interactive access to the handoff's runtime session; only while the handoff is active. */
export class CreateManualHandoffAccessGrantUseCase {
  constructor(private readonly deps: CreateManualHandoffAccessGrantDeps) {}

  async execute(
    scope: TenantScope,
    command: { authorizationId: string; manualHandoffId: string },
  ): Promise<IssuedGrant> {
    const handoff = await this.deps.unitOfWork.run(scope, (tx) =>
      loadManualHandoff(tx, command.authorizationId, command.manualHandoffId),
    );
    if (handoff.currentState !== 'active')
      throw manualHandoffInvalidState(handoff.currentState, 'createAccessGrant');
    const now = this.deps.clock.now();
    // Past its expiry but not yet closed by the expiry job: as good as expired, nothing to grant access to.
    if (handoff.expiresAt.getTime() <= now.getTime())
      throw new DomainError('manual_handoff_invalid_state', 'The manual handoff has expired.', {
        state: handoff.currentState,
        operation: 'createAccessGrant',
        expiresAt: handoff.expiresAt.toISOString(),
      });
    const expiresAt = new Date(
      Math.min(now.getTime() + MANUAL_HANDOFF_GRANT_TTL_MS, handoff.expiresAt.getTime()),
    );
    return this.deps.grantIssuer.issue({ scope, kind: 'manual_handoff', subjectId: handoff.id, expiresAt });
  }
}
