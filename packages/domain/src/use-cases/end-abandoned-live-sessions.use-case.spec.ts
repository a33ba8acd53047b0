import { type LiveSessionFrames } from '../ports/live-session-frames.port';
import { type LiveSessionInputs } from '../ports/live-session-inputs.port';
import {
  type AbandonedRuntimeSession,
  LIVE_SESSION_ABANDONED_AFTER_MS,
  type RuntimeSessionLedger,
} from '../ports/runtime-session-ledger.port';
import { createHarness, SCOPE, type Harness } from '../testing';
import { CreateManualHandoffUseCase } from './create-manual-handoff.use-case';
import { EndAbandonedLiveSessionsUseCase } from './end-abandoned-live-sessions.use-case';

let h: Harness;
beforeEach(() => {
  h = createHarness();
});

/** The ledger's sweep as the use case sees it: sessions (of one case) by their last beat. */
function ledgerWith(authorizationId: string, lastBeats: Record<string, Date>) {
  const ended: string[] = [];
  const ledger = {
    endAbandoned: async (lastBeatBefore: Date): Promise<AbandonedRuntimeSession[]> => {
      const stale = Object.entries(lastBeats)
        .filter(([id, beat]) => !ended.includes(id) && beat.getTime() < lastBeatBefore.getTime())
        .map(([id]) => id);
      ended.push(...stale);
      return stale.map((id) => ({ id, scope: SCOPE, authorizationId }));
    },
  } as unknown as RuntimeSessionLedger;
  return { ended, ledger };
}

function sweepOf(ledger: RuntimeSessionLedger, abandonedAfterMs?: number) {
  const closed: string[] = [];
  const discarded: string[] = [];
  const frames = { close: async (id: string) => void closed.push(id) } as unknown as LiveSessionFrames;
  const inputs = { discard: async (id: string) => void discarded.push(id) } as unknown as LiveSessionInputs;
  const sweep = new EndAbandonedLiveSessionsUseCase(
    { ...h.deps, ledger, frames, inputs },
    abandonedAfterMs === undefined ? {} : { abandonedAfterMs },
  );
  return { sweep, closed, discarded };
}

describe('EndAbandonedLiveSessionsUseCase', () => {
  it('ends only the sessions whose owner stopped beating, dropping their frame and untaken input', async () => {
    const now = h.clock.now().getTime();
    const { ledger, ended } = ledgerWith('auth_1', {
      rs_dead: new Date(now - LIVE_SESSION_ABANDONED_AFTER_MS - 1),
      rs_alive: new Date(now - LIVE_SESSION_ABANDONED_AFTER_MS + 1_000),
    });
    const { sweep, closed, discarded } = sweepOf(ledger);

    expect(await sweep.execute()).toEqual(['rs_dead']);
    expect(ended).toEqual(['rs_dead']);
    expect(closed).toEqual(['rs_dead']);
    expect(discarded).toEqual(['rs_dead']);

    // A second sweep finds nothing new until the other owner's beats lapse too.
    expect(await sweep.execute()).toEqual([]);
    h.clock.advance(2_000);
    expect(await sweep.execute()).toEqual(['rs_alive']);
    expect(discarded).toEqual(['rs_dead', 'rs_alive']);
  });

  it.each([
    [5_000, 4_999, []],
    [5_000, 5_001, ['rs_1']],
  ])(
    'with abandonedAfterMs %i, a session last beating %i ms ago is ended: %j',
    async (after, ago, expected) => {
      const { ledger } = ledgerWith('auth_1', { rs_1: new Date(h.clock.now().getTime() - ago) });
      expect(await sweepOf(ledger, after).sweep.execute()).toEqual(expected);
    },
  );

  it('closes the active manual handoff working on an abandoned session as interaction lost', async () => {
    const authorization = await h.authorizationIn('requires_action');
    const { handoff } = await new CreateManualHandoffUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
      expectedVersion: authorization.version,
    });
    const sessionId = handoff.runtimeSessionId!;
    const { ledger } = ledgerWith(authorization.id, {
      rs_other: new Date(0),
      [sessionId]: new Date(0),
    });

    expect(await sweepOf(ledger).sweep.execute()).toEqual(['rs_other', sessionId]);
    const closed = await h.unitOfWork.run(SCOPE, (tx) => tx.manualHandoffs.findById(handoff.id));
    expect(closed?.toState()).toMatchObject({
      result: 'interaction_lost_unrecoverable',
      reconciliation: { state: 'pending' },
    });
    expect(h.grantIssuer.revokedSubjects).toEqual([handoff.id]);
    expect((await h.load(authorization.id)).status).toBe('requires_action');
  });
});
