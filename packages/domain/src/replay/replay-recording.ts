import { type ReplayEntry, type ReplayFrame, type ReplayGapReason } from '../ports/replay-segments.port';

export interface ReplayRecordingSettings {
  /** At most one frame of the same page per this many milliseconds is recorded. */
  minFrameIntervalMs: number;
  /** A segment closes once it holds this many frames… */
  framesPerSegment: number;
  /** …or once its first entry is this old, so a process that dies loses at most one segment. */
  segmentMs: number;
}

/**
 * Which frames of one portal run go into its replay, and in which segments
 * (docs/decisions/0045-portal-run-replays.md). Rate: at most one frame per `minFrameIntervalMs` of a page,
 * plus, whenever the page changes, the last frame of the page left and the first of the new one (a skipped
 * frame waits as `pending` and is recorded when its page changes, its segment closes or the run ends, so the
 * last picture of every page is kept). Privacy: once a person takes the page (`gap`), a marker is recorded
 * and no frame ever again. Every call answers the segments it closed, oldest first, for the caller to store.
 */
export class ReplayRecording {
  private batch: ReplayEntry[] = [];
  private batchFrames = 0;
  private batchStartedAt = 0;
  private last: ReplayFrame | null = null;
  private pending: ReplayFrame | null = null;
  private stopped = false;

  constructor(private readonly settings: ReplayRecordingSettings) {}

  /** A frame the page showed at `frame.capturedAt`. Ignored after a gap or the end. */
  frame(frame: Omit<ReplayFrame, 'kind'>): ReplayEntry[][] {
    if (this.stopped) return [];
    const offered: ReplayFrame = { kind: 'frame', ...frame };
    const closed: ReplayEntry[][] = [];
    const last = this.last;
    if (last === null || last.page !== offered.page) {
      this.recordPending(closed);
      this.add(offered, closed);
    } else if (offered.capturedAt.getTime() - last.capturedAt.getTime() >= this.settings.minFrameIntervalMs) {
      this.pending = null;
      this.add(offered, closed);
    } else {
      this.pending = offered;
    }
    closed.push(...this.tick(offered.capturedAt));
    return closed;
  }

  /** A person takes the page from `at`: what was captured before is kept, then the marker, then nothing. */
  gap(reason: ReplayGapReason, at: Date): ReplayEntry[][] {
    if (this.stopped) return [];
    const closed: ReplayEntry[][] = [];
    this.recordPending(closed);
    this.add({ kind: 'gap', at, reason }, closed);
    this.stopped = true;
    this.close(closed);
    return closed;
  }

  /** Closes the open segment when its first entry is `segmentMs` old at `now` (a page that stopped painting). */
  tick(now: Date): ReplayEntry[][] {
    const startedAt = this.batch.length > 0 ? this.batchStartedAt : this.pending?.capturedAt.getTime();
    if (startedAt === undefined || now.getTime() - startedAt < this.settings.segmentMs) return [];
    const closed: ReplayEntry[][] = [];
    this.recordPending(closed);
    this.close(closed);
    return closed;
  }

  /** The run is over: what is left, as the last segment. */
  end(): ReplayEntry[][] {
    const closed: ReplayEntry[][] = [];
    if (!this.stopped) this.recordPending(closed);
    this.stopped = true;
    this.close(closed);
    return closed;
  }

  private recordPending(closed: ReplayEntry[][]): void {
    const pending = this.pending;
    this.pending = null;
    if (pending !== null) this.add(pending, closed);
  }

  private add(entry: ReplayEntry, closed: ReplayEntry[][]): void {
    if (this.batch.length === 0)
      this.batchStartedAt = (entry.kind === 'frame' ? entry.capturedAt : entry.at).getTime();
    this.batch.push(entry);
    if (entry.kind !== 'frame') return;
    this.batchFrames += 1;
    this.last = entry;
    if (this.batchFrames >= this.settings.framesPerSegment) this.close(closed);
  }

  private close(closed: ReplayEntry[][]): void {
    if (this.batch.length === 0) return;
    closed.push(this.batch);
    this.batch = [];
    this.batchFrames = 0;
  }
}
