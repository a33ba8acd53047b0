import { type DomainPorts } from '../ports';
import { type LiveSessionFrames } from '../ports/live-session-frames.port';
import { type LiveSessionInputs } from '../ports/live-session-inputs.port';
import {
  type AbandonedRuntimeSession,
  LIVE_SESSION_ABANDONED_AFTER_MS,
  type RuntimeSessionLedger,
} from '../ports/runtime-session-ledger.port';
import { LoseManualHandoffInteractionUseCase } from './lose-manual-handoff-interaction.use-case';

export type EndAbandonedLiveSessionsDeps = Pick<
  DomainPorts,
  'unitOfWork' | 'clock' | 'ids' | 'runtimeSessions'
> & {
  ledger: RuntimeSessionLedger;
  frames: LiveSessionFrames;
  inputs: LiveSessionInputs;
};

/**
 * The sweep of decision 0039: live sessions whose owning process stopped beating (it died: SIGKILL, a lost
 * machine) are ended, so grants for them answer `access_grant_subject_inactive` and the case no longer shows a
 * live session nobody runs. Their last frame goes (viewers are told) and so does any input sent to them that
 * nobody took. A manual handoff working on such a session (one that adopted a kept page, decision 0038) has
 * lost its interaction for good and is closed so, which starts its reconciliation. Safe to run on any number of
 * processes at once: each session is ended by one of them.
 */
export class EndAbandonedLiveSessionsUseCase {
  private readonly abandonedAfterMs: number;
  private readonly lose: LoseManualHandoffInteractionUseCase;

  constructor(
    private readonly deps: EndAbandonedLiveSessionsDeps,
    options: { abandonedAfterMs?: number } = {},
  ) {
    this.abandonedAfterMs = options.abandonedAfterMs ?? LIVE_SESSION_ABANDONED_AFTER_MS;
    this.lose = new LoseManualHandoffInteractionUseCase(deps);
  }

  /** The ids of the sessions this run ended. */
  async execute(): Promise<string[]> {
    const now = this.deps.clock.now();
    const ended = await this.deps.ledger.endAbandoned(new Date(now.getTime() - this.abandonedAfterMs), now);
    for (const session of ended) {
      await this.deps.frames.close(session.id);
      await this.deps.inputs.discard(session.id);
      await this.loseHandoffOn(session);
    }
    return ended.map((session) => session.id);
  }

  private async loseHandoffOn(session: AbandonedRuntimeSession): Promise<void> {
    const handoff = await this.deps.unitOfWork.run(session.scope, async (tx) =>
      (await tx.manualHandoffs.listByAuthorization(session.authorizationId)).find(
        (h) => h.runtimeSessionId === session.id && h.currentState === 'active',
      ),
    );
    if (handoff === undefined) return;
    await this.lose.execute(session.scope, {
      authorizationId: session.authorizationId,
      manualHandoffId: handoff.id,
    });
  }
}
