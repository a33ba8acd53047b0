import { type ReplayEntry } from '../ports/replay-segments.port';
import { keepsPollReplay, ReplayKeeping } from './replay-keeping';

const T0 = Date.UTC(2026, 0, 1);
const frame = (ms: number, size = 100): ReplayEntry => ({
  kind: 'frame',
  bytes: new Uint8Array(size),
  page: '/requests/R-1',
  contentType: 'image/jpeg',
  capturedAt: new Date(T0 + ms),
});
const gap = (ms: number): ReplayEntry => ({ kind: 'gap', at: new Date(T0 + ms), reason: 'customer_sign_in' });
const times = (segments: ReplayEntry[][]) =>
  segments.map((s) =>
    s.map((e) => (e.kind === 'frame' ? e.capturedAt.getTime() - T0 : `gap@${e.at.getTime() - T0}`)),
  );

const keeping = (kind: 'decision_poll' | 'other', maxBufferedBytes = 10_000) =>
  new ReplayKeeping(kind, { maxBufferedBytes });

describe('keepsPollReplay', () => {
  it('keeps a poll that found a decision, a request for more information, or failed', () => {
    expect(keepsPollReplay('decided', false)).toBe(true);
    expect(keepsPollReplay('more_information', false)).toBe(true);
    expect(keepsPollReplay(null, false)).toBe(true);
  });

  it('drops a poll that found the case pending, unless a person took its page', () => {
    expect(keepsPollReplay('pending', false)).toBe(false);
    expect(keepsPollReplay('pending', true)).toBe(true);
  });
});

describe('ReplayKeeping', () => {
  it('writes every segment of a run that is not a decision poll at once', () => {
    const k = keeping('other');
    expect(times(k.closed([[frame(0)], [frame(1_000)]]))).toEqual([[0], [1_000]]);
    expect(times(k.closed([[frame(2_000)]]))).toEqual([[2_000]]);
    expect(k.end()).toEqual([]);
  });

  it("drops a pending poll's replay: nothing is ever written", () => {
    const k = keeping('decision_poll');
    expect(k.closed([[frame(0)], [frame(1_000)]])).toEqual([]);
    expect(k.foundAtPayer('pending')).toEqual([]);
    expect(k.closed([[frame(2_000)]])).toEqual([]);
    expect(k.end()).toEqual([]);
    expect(k.closed([[frame(3_000)]])).toEqual([]);
  });

  it.each(['decided', 'more_information'] as const)(
    'writes what a poll held once it found %s, and the rest as it comes',
    (found) => {
      const k = keeping('decision_poll');
      expect(k.closed([[frame(0)], [frame(1_000)]])).toEqual([]);
      expect(times(k.foundAtPayer(found))).toEqual([[0], [1_000]]);
      expect(times(k.closed([[frame(2_000)]]))).toEqual([[2_000]]);
      expect(k.end()).toEqual([]);
    },
  );

  it('keeps a poll that failed (it ended without a finding), its last segment included', () => {
    const k = keeping('decision_poll');
    expect(k.closed([[frame(0)]])).toEqual([]);
    expect(k.closed([[frame(1_000)]])).toEqual([]);
    expect(times(k.end())).toEqual([[0], [1_000]]);
    expect(k.end()).toEqual([]);
  });

  it('writes a poll at once when a person takes its page (the gap), whatever it then finds', () => {
    const k = keeping('decision_poll');
    expect(k.closed([[frame(0)]])).toEqual([]);
    expect(times(k.closed([[frame(500), gap(600)]]))).toEqual([[0], [500, 'gap@600']]);
    expect(k.foundAtPayer('pending')).toEqual([]);
    expect(times(k.closed([[frame(700)]]))).toEqual([[700]]);
    expect(k.end()).toEqual([]);
  });

  it('holds a bounded amount of a poll in memory: the oldest segments go, the newest always stays', () => {
    const k = keeping('decision_poll', 250);
    k.closed([[frame(0)], [frame(1_000)], [frame(2_000)]]);
    expect(times(k.foundAtPayer('decided'))).toEqual([[1_000], [2_000]]);

    const big = keeping('decision_poll', 250);
    big.closed([[frame(0)], [frame(1_000, 400)]]);
    expect(times(big.end())).toEqual([[1_000]]);
  });
});
