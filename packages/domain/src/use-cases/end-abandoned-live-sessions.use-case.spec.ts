import { type LiveSessionFrames } from '../ports/live-session-frames.port';
import { type LiveSessionInputs } from '../ports/live-session-inputs.port';
import { LIVE_SESSION_ABANDONED_AFTER_MS } from '../ports/runtime-session-ledger.port';
import { FixedClock } from '../testing/fixed-clock';
import { EndAbandonedLiveSessionsUseCase } from './end-abandoned-live-sessions.use-case';

/** The ledger's sweep as the use case sees it: sessions by their last beat. */
function ledgerWith(lastBeats: Record<string, Date>) {
  const ended: string[] = [];
  return {
    ended,
    ledger: {
      endAbandoned: async (lastBeatBefore: Date) => {
        const stale = Object.entries(lastBeats)
          .filter(([id, beat]) => !ended.includes(id) && beat.getTime() < lastBeatBefore.getTime())
          .map(([id]) => id);
        ended.push(...stale);
        return stale;
      },
    },
  };
}

function channels() {
  const closed: string[] = [];
  const discarded: string[] = [];
  const frames = { close: async (id: string) => void closed.push(id) } as unknown as LiveSessionFrames;
  const inputs = { discard: async (id: string) => void discarded.push(id) } as unknown as LiveSessionInputs;
  return { closed, discarded, frames, inputs };
}

describe('EndAbandonedLiveSessionsUseCase', () => {
  it('ends only the sessions whose owner stopped beating, dropping their frame and untaken input', async () => {
    const clock = new FixedClock();
    const now = clock.now().getTime();
    const { ledger, ended } = ledgerWith({
      rs_dead: new Date(now - LIVE_SESSION_ABANDONED_AFTER_MS - 1),
      rs_alive: new Date(now - LIVE_SESSION_ABANDONED_AFTER_MS + 1_000),
    });
    const { closed, discarded, frames, inputs } = channels();
    const sweep = new EndAbandonedLiveSessionsUseCase({
      ledger: ledger as never,
      frames,
      inputs,
      clock,
    });

    expect(await sweep.execute()).toEqual(['rs_dead']);
    expect(ended).toEqual(['rs_dead']);
    expect(closed).toEqual(['rs_dead']);
    expect(discarded).toEqual(['rs_dead']);

    // A second sweep finds nothing new until the other owner's beats lapse too.
    expect(await sweep.execute()).toEqual([]);
    clock.advance(2_000);
    expect(await sweep.execute()).toEqual(['rs_alive']);
    expect(discarded).toEqual(['rs_dead', 'rs_alive']);
  });

  it.each([
    [5_000, 4_999, []],
    [5_000, 5_001, ['rs_1']],
  ])('with abandonedAfterMs %i, a session last beating %i ms ago is ended: %j', async (after, ago, expected) => {
    const clock = new FixedClock();
    const { ledger } = ledgerWith({ rs_1: new Date(clock.now().getTime() - ago) });
    const { frames, inputs } = channels();
    const sweep = new EndAbandonedLiveSessionsUseCase(
      { ledger: ledger as never, frames, inputs, clock },
      { abandonedAfterMs: after },
    );
    expect(await sweep.execute()).toEqual(expected);
  });
});
