import { type ReplayEntry } from '../ports/replay-segments.port';
import { ReplayRecording } from './replay-recording';

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(T0 + ms);
const frame = (ms: number, page = '/start') => ({
  bytes: Uint8Array.from([ms % 256]),
  page,
  contentType: 'image/jpeg',
  capturedAt: at(ms),
});
const describeEntry = (entry: ReplayEntry) =>
  entry.kind === 'frame' ? `${entry.page}@${entry.capturedAt.getTime() - T0}` : `gap:${entry.reason}`;
const describeAll = (segments: ReplayEntry[][]) => segments.map((s) => s.map(describeEntry));

const recording = (settings: Partial<ConstructorParameters<typeof ReplayRecording>[0]> = {}) =>
  new ReplayRecording({ minFrameIntervalMs: 1_000, framesPerSegment: 100, segmentMs: 60_000, ...settings });

describe('ReplayRecording', () => {
  it('keeps at most one frame per second of a page, and the last one before the run ends', () => {
    const r = recording();
    const closed = [0, 100, 400, 900, 1_000, 1_500, 2_700, 2_800].flatMap((ms) => r.frame(frame(ms)));
    expect(closed).toEqual([]);
    expect(describeAll(r.end())).toEqual([['/start@0', '/start@1000', '/start@2700', '/start@2800']]);
  });

  it("records every page change: the page left's last frame, then the new page's first", () => {
    const r = recording();
    for (const [ms, page] of [
      [0, '/sign-in'],
      [200, '/sign-in'],
      [300, '/sign-in'],
      [350, '/request'],
      [400, '/request'],
      [450, '/confirmation'],
    ] as const)
      r.frame(frame(ms, page));
    expect(describeAll(r.end())).toEqual([
      ['/sign-in@0', '/sign-in@300', '/request@350', '/request@400', '/confirmation@450'],
    ]);
  });

  it('closes a segment every N frames, so a dying process loses at most the open one', () => {
    const r = recording({ framesPerSegment: 2 });
    const closed = [0, 1_000, 2_000, 3_000, 4_000].flatMap((ms) => r.frame(frame(ms)));
    expect(describeAll(closed)).toEqual([
      ['/start@0', '/start@1000'],
      ['/start@2000', '/start@3000'],
    ]);
    expect(describeAll(r.end())).toEqual([['/start@4000']]);
    expect(r.end()).toEqual([]);
  });

  it('closes a segment once its first entry is old enough, even when the page stopped painting', () => {
    const r = recording({ segmentMs: 5_000 });
    r.frame(frame(0));
    r.frame(frame(300));
    expect(r.tick(at(4_999))).toEqual([]);
    expect(describeAll(r.tick(at(5_000)))).toEqual([['/start@0', '/start@300']]);
    expect(r.tick(at(20_000))).toEqual([]);
    expect(describeAll(r.frame(frame(20_100)))).toEqual([]);
    expect(describeAll(r.end())).toEqual([['/start@20100']]);
  });

  it.each(['customer_sign_in', 'manual_handoff'] as const)(
    'records no frame once a person takes the page (%s): a gap marker instead',
    (reason) => {
      const r = recording();
      r.frame(frame(0, '/sign-in'));
      r.frame(frame(200, '/sign-in'));
      const closed = r.gap(reason, at(300));
      // Whatever the page shows while the person types (a password, PHI) never reaches the replay.
      const after = [400, 1_500, 3_000].flatMap((ms) => r.frame(frame(ms, '/sign-in')));
      after.push(...r.frame(frame(3_100, '/choose-provider')), ...r.tick(at(120_000)), ...r.end());
      expect(after).toEqual([]);
      expect(closed).toHaveLength(1);
      expect(describeAll(closed)).toEqual([['/sign-in@0', '/sign-in@200', `gap:${reason}`]]);
      expect(closed[0]![2]).toEqual({ kind: 'gap', reason, at: at(300) });
      expect(r.gap(reason, at(5_000))).toEqual([]);
    },
  );
});
