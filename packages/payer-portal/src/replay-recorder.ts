import {
  ReplayKeeping,
  ReplayRecording,
  type Clock,
  type DecisionPollFinding,
  type PortalCase,
  type PortalRunKind,
  type ReplayEntry,
  type ReplayGapReason,
  type ReplaySegments,
} from '@prior-auth/domain';

export interface ReplayRecorderOptions {
  segments: ReplaySegments;
  clock: Clock;
  /** At most one frame of the same page per this many milliseconds is recorded (default 1 s). */
  minFrameIntervalMs?: number;
  /** A segment is written once it holds this many frames (default 10)… */
  framesPerSegment?: number;
  /** …or once its first entry is this old (default 10 s), so a killed worker loses at most one segment. */
  segmentMs?: number;
  /** How many bytes of frames a decision poll holds in memory until it is known to matter (default 2 MB). */
  maxPollBufferBytes?: number;
  /** Told when a segment cannot be written (the run itself is unaffected). */
  onError?: (error: unknown) => void;
}

/** One run's replay while the run goes on. */
export interface RunReplay {
  /** A frame the screencast delivered (its page's path); recorded or skipped by the rate rule. */
  frame(frame: { bytes: Uint8Array; page: string }): void;
  /** A person takes the page from now on: a gap marker is recorded and no frame of the run ever again. */
  gap(reason: ReplayGapReason): void;
  /** What a decision poll found: its replay is written only when that matters (or the poll fails). */
  found(finding: DecisionPollFinding): void;
  /** Writes what is left; resolves once every segment of the run was written (or reported). */
  end(): Promise<void>;
}

/** Starts the replay of each portal run (ScreencastLiveSessions' hook). */
export interface RunReplays {
  start(portalCase: PortalCase, runtimeSessionId: string, kind?: PortalRunKind): RunReplay;
}

/**
 * Records each portal run as a replay (docs/decisions/0045-portal-run-replays.md), watched or not, from the
 * screencast its live session already runs: the domain's `ReplayRecording` picks the frames and closes the
 * segments, written here one after another. A decision poll's segments wait in memory and are written only
 * when the poll mattered (`ReplayKeeping`). A segment that cannot be written is reported; the run goes on.
 */
export class ReplayRecorder implements RunReplays {
  constructor(private readonly options: ReplayRecorderOptions) {}

  start(portalCase: PortalCase, runtimeSessionId: string, kind: PortalRunKind = 'other'): RunReplay {
    const { segments, clock } = this.options;
    const segmentMs = this.options.segmentMs ?? 10_000;
    const recording = new ReplayRecording({
      minFrameIntervalMs: this.options.minFrameIntervalMs ?? 1_000,
      framesPerSegment: this.options.framesPerSegment ?? 10,
      segmentMs,
    });
    const keeping = new ReplayKeeping(kind, {
      maxBufferedBytes: this.options.maxPollBufferBytes ?? 2 * 1024 * 1024,
    });
    const key = {
      organizationId: portalCase.organizationId,
      environment: portalCase.environment,
      authorizationId: portalCase.authorizationId,
      runtimeSessionId,
    };
    let seq = 0;
    let writing: Promise<void> = Promise.resolve();
    const store = (kept: ReplayEntry[][]) => {
      for (const entries of kept) {
        const number = ++seq;
        writing = writing.then(() =>
          segments
            .append(key, number, entries, clock.now())
            .catch((error: unknown) => this.options.onError?.(error)),
        );
      }
    };
    const write = (closed: ReplayEntry[][]) => store(keeping.closed(closed));
    // A page that stops painting sends no frame: its open segment is closed on time all the same.
    const timer = setInterval(() => write(recording.tick(clock.now())), Math.max(segmentMs / 2, 250));
    timer.unref();

    return {
      frame: ({ bytes, page }) =>
        write(recording.frame({ bytes, page, contentType: 'image/jpeg', capturedAt: clock.now() })),
      gap: (reason) => write(recording.gap(reason, clock.now())),
      found: (finding) => store(keeping.foundAtPayer(finding)),
      end: async () => {
        clearInterval(timer);
        write(recording.end());
        store(keeping.end());
        await writing;
      },
    };
  }
}
