import { type LiveSessionFrames } from '@prior-auth/domain';

/** Told that a session's frame or state may have changed: the subscriber reads what it needs itself. */
export type LiveSessionListener = () => void;

/** How often a watched session is looked at even without a notification (a LISTEN connection being replaced). */
const FALLBACK_CHECK_MS = 2_000;

/**
 * This API process's view of the live-frame channel (decision 0033): one LISTEN for the whole process, started
 * with the first viewer, fanned out to the viewers of each session. A periodic check per session covers the
 * moments a lost LISTEN connection is being replaced.
 */
export class LiveFrameHub {
  private readonly listeners = new Map<string, Set<LiveSessionListener>>();
  private stopWatching: Promise<() => Promise<void>> | null = null;
  private fallback: NodeJS.Timeout | undefined;

  constructor(private readonly frames: LiveSessionFrames) {}

  /** Starts listening (once per process) and registers `listener` for `sessionId`; returns the unsubscribe. */
  async subscribe(sessionId: string, listener: LiveSessionListener): Promise<() => void> {
    this.stopWatching ??= this.frames.watch((changed) => this.notify(changed));
    try {
      await this.stopWatching;
    } catch (error) {
      this.stopWatching = null;
      throw error;
    }
    const set = this.listeners.get(sessionId) ?? new Set();
    set.add(listener);
    this.listeners.set(sessionId, set);
    this.fallback ??= setInterval(() => {
      for (const id of this.listeners.keys()) this.notify(id);
    }, FALLBACK_CHECK_MS).unref();
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(sessionId);
      if (this.listeners.size === 0) {
        clearInterval(this.fallback);
        this.fallback = undefined;
      }
    };
  }

  async close(): Promise<void> {
    clearInterval(this.fallback);
    this.fallback = undefined;
    const stop = this.stopWatching;
    this.stopWatching = null;
    this.listeners.clear();
    if (stop) await (await stop.catch(() => null))?.();
  }

  private notify(sessionId: string): void {
    for (const listener of [...(this.listeners.get(sessionId) ?? [])]) listener();
  }
}
