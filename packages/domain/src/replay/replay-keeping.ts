import { type DecisionPoll } from '../ports/payer-portal.port';
import { type ReplayEntry } from '../ports/replay-segments.port';

/**
 * What a portal run is, as far as its replay goes: a decision poll's replay is written only when the poll
 * mattered; any other run's as it is recorded.
 */
export type PortalRunKind = 'decision_poll' | 'other';

/** What a decision poll found at the payer. */
export type DecisionPollFinding = DecisionPoll['state'];

/**
 * Whether a decision poll's replay is kept (docs/decisions/0045-portal-run-replays.md): it found a decision or
 * a request for more information, it failed (it found nothing: `null`), or a person took its page (a gap). A
 * poll that found the case still pending shows nothing worth 30 days of storage.
 */
export function keepsPollReplay(found: DecisionPollFinding | null, gap: boolean): boolean {
  return gap || found !== 'pending';
}

export interface ReplayKeepingSettings {
  /** A poll holds at most this many bytes of frames while its worth is unknown; the oldest segments go first. */
  maxBufferedBytes: number;
}

/**
 * Which of a run's closed segments are written, and when (docs/decisions/0045-portal-run-replays.md). Any run
 * but a decision poll: each segment at once. A decision poll: its segments wait in memory (bounded) until the
 * poll is known to matter (then they are all written and the rest follows at once), or the run ends having
 * found the case pending (then they are dropped). Every call answers the segments to write now, oldest first.
 */
export class ReplayKeeping {
  private buffered: ReplayEntry[][] = [];
  private bufferedBytes = 0;
  private found: DecisionPollFinding | null = null;
  private gap = false;
  /** Whether segments go straight through: always for other runs, for a poll once it is known to matter. */
  private passing: boolean;
  private ended = false;

  constructor(
    kind: PortalRunKind,
    private readonly settings: ReplayKeepingSettings,
  ) {
    this.passing = kind !== 'decision_poll';
  }

  /** Segments the recording closed. */
  closed(segments: ReplayEntry[][]): ReplayEntry[][] {
    if (this.ended) return [];
    if (this.passing) return segments;
    for (const segment of segments) {
      if (segment.some((entry) => entry.kind === 'gap')) this.gap = true;
      this.buffer(segment);
    }
    // A person took the page: the poll matters whatever it finds, and the handoff may last hours.
    return this.gap ? this.release() : [];
  }

  /** What the poll found: a finding that matters writes what waited. */
  foundAtPayer(found: DecisionPollFinding): ReplayEntry[][] {
    if (this.ended) return [];
    this.found = found;
    return !this.passing && keepsPollReplay(found, this.gap) ? this.release() : [];
  }

  /** The run is over (its last segments already went through `closed`): a poll told no finding failed. */
  end(): ReplayEntry[][] {
    if (this.ended) return [];
    const left = this.passing || keepsPollReplay(this.found, this.gap) ? this.release() : [];
    this.buffered = [];
    this.bufferedBytes = 0;
    this.ended = true;
    return left;
  }

  private buffer(segment: ReplayEntry[]): void {
    this.buffered.push(segment);
    this.bufferedBytes += bytesOf(segment);
    // A poll that hangs until its time limit: its last pictures (where it stuck) are the ones worth keeping.
    while (this.bufferedBytes > this.settings.maxBufferedBytes && this.buffered.length > 1) {
      this.bufferedBytes -= bytesOf(this.buffered.shift()!);
    }
  }

  private release(): ReplayEntry[][] {
    this.passing = true;
    const released = this.buffered;
    this.buffered = [];
    this.bufferedBytes = 0;
    return released;
  }
}

const bytesOf = (segment: readonly ReplayEntry[]): number =>
  segment.reduce((sum, entry) => sum + (entry.kind === 'frame' ? entry.bytes.byteLength : 0), 0);
