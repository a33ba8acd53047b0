/** One picture of a live browser session's screen, as the worker that owns the browser captured it. */
export interface LiveFrame {
  /** Which page of the portal the picture shows (its path), so a viewer can tell pages apart. */
  page: string;
  contentType: string;
  bytes: Uint8Array;
  capturedAt: Date;
}

/** The newest frame of a session, numbered so a viewer sends each one once. */
export interface StoredLiveFrame extends LiveFrame {
  seq: number;
}

/**
 * The channel between the process that owns a live browser session and the processes that show it
 * (docs/decisions/0033-live-browser-sessions.md): the owner publishes frames, any process reads the newest one
 * and is told when a session's frame changes or the session ends.
 */
export interface LiveSessionFrames {
  publish(sessionId: string, frame: LiveFrame): Promise<void>;
  /** Drops the session's frames and tells the watchers it is over (after the session was ended). */
  close(sessionId: string): Promise<void>;
  latest(sessionId: string): Promise<StoredLiveFrame | null>;
  /** A viewer wants the session's frames until `until` (renewed while it watches). */
  markWatched(sessionId: string, until: Date): Promise<void>;
  /** Until when a viewer wants the session's frames; null when nobody ever did. The owner captures only then. */
  watchedUntil(sessionId: string): Promise<Date | null>;
  /**
   * Calls `onChange(sessionId)` whenever any process publishes a frame of a session or closes it (possibly more
   * than once per change). Resolves to the function that stops watching.
   */
  watch(onChange: (sessionId: string) => void): Promise<() => Promise<void>>;
}
