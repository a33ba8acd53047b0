import { type Clock } from '../ports/clock.port';
import { type LiveSessionFrames } from '../ports/live-session-frames.port';
import { type LiveSessionInputs } from '../ports/live-session-inputs.port';
import {
  LIVE_SESSION_ABANDONED_AFTER_MS,
  type RuntimeSessionLedger,
} from '../ports/runtime-session-ledger.port';

export interface EndAbandonedLiveSessionsDeps {
  ledger: RuntimeSessionLedger;
  frames: LiveSessionFrames;
  inputs: LiveSessionInputs;
  clock: Clock;
}

/**
 * The sweep of decision 0039: live sessions whose owning process stopped beating (it died: SIGKILL, a lost
 * machine) are ended, so grants for them answer `access_grant_subject_inactive` and the case no longer shows a
 * live session nobody runs. Their last frame goes (viewers are told) and so does any input sent to them that
 * nobody took. Safe to run on any number of processes at once: each session is ended by one of them.
 */
export class EndAbandonedLiveSessionsUseCase {
  private readonly abandonedAfterMs: number;

  constructor(
    private readonly deps: EndAbandonedLiveSessionsDeps,
    options: { abandonedAfterMs?: number } = {},
  ) {
    this.abandonedAfterMs = options.abandonedAfterMs ?? LIVE_SESSION_ABANDONED_AFTER_MS;
  }

  /** The ids of the sessions this run ended. */
  async execute(): Promise<string[]> {
    const now = this.deps.clock.now();
    const ended = await this.deps.ledger.endAbandoned(new Date(now.getTime() - this.abandonedAfterMs), now);
    for (const sessionId of ended) {
      await this.deps.frames.close(sessionId);
      await this.deps.inputs.discard(sessionId);
    }
    return ended;
  }
}
