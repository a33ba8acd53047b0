/**
 * One action of a person on an interactive live view, as the viewer page sent it. Pointer positions are
 * fractions (0–1) of the picture the viewer showed, so they do not depend on its size on the viewer's screen:
 * the browser's owner maps them onto its page.
 */
export type LiveInput =
  | { kind: 'click'; x: number; y: number }
  | { kind: 'key'; key: string }
  | { kind: 'text'; text: string }
  /** A turn of the wheel with the pointer at (x, y): deltas in CSS pixels, positive down and right. */
  | { kind: 'scroll'; x: number; y: number; deltaX: number; deltaY: number }
  /** One step of a drag: the button pressed at a point, the pointer moved while held, then released. */
  | { kind: 'pointer'; phase: 'down' | 'move' | 'up'; x: number; y: number }
  /** Plain text the person pasted, inserted at once where the page's focus is. */
  | { kind: 'paste'; text: string };

/** An input as the channel keeps it, numbered in the order it was sent. */
export interface StoredLiveInput {
  seq: number;
  input: LiveInput;
}

/**
 * The reverse of `LiveSessionFrames` (docs/decisions/0038-interactive-manual-handoff.md): any process serving an
 * interactive live view sends a person's input to a session; the process that owns the session's browser is
 * told and takes the inputs, in order, each once.
 */
export interface LiveSessionInputs {
  /** Dropped when the session has ended: nothing would ever take it. */
  send(sessionId: string, input: LiveInput): Promise<void>;
  /** The session's inputs not yet taken, oldest first; taking them removes them from the channel. */
  take(sessionId: string): Promise<StoredLiveInput[]>;
  /**
   * Drops the session's inputs nobody took (its end, or its owner died): what a person typed, a password
   * included, is kept no longer than its dispatch needs (decision 0039).
   */
  discard(sessionId: string): Promise<void>;
  /**
   * The owner keeps the session's browser page for an operator until `until` (a portal that demands a human,
   * decision 0038): a manual handoff of the case created meanwhile adopts the session as its own.
   */
  hold(sessionId: string, until: Date): Promise<void>;
  /** Until when the session's page is kept for an operator; null when it never was. */
  heldUntil(sessionId: string): Promise<Date | null>;
  /** Calls `onInput(sessionId)` whenever any process sends input to a session. Resolves to the stop function. */
  watch(onInput: (sessionId: string) => void): Promise<() => Promise<void>>;
}
