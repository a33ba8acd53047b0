import { type LiveInput } from '@prior-auth/domain';
import { LIVE_INPUT_KEYS } from '@prior-auth/payer-portal';

/*
 * What an interactive live view may send (docs/decisions/0038-interactive-manual-handoff.md): the one source of
 * its limits for the route, the view page's script and the OpenAPI document.
 */

/** The longest text one typed input may carry. */
export const MAX_LIVE_INPUT_TEXT_LENGTH = 256;
/** The longest paste: a note or a reference, not a document. */
export const MAX_LIVE_INPUT_PASTE_LENGTH = 2000;
/** A scroll input moves at most this many CSS pixels each way; larger deltas are clamped to it. */
export const MAX_LIVE_INPUT_SCROLL_DELTA = 2000;
/** The phases of a drag, in the order a person's button produces them. */
export const LIVE_INPUT_POINTER_PHASES = ['down', 'move', 'up'] as const;
/** The JSON body limit of `…/input`: a paste of the longest length, each character escaped, fits. */
export const LIVE_INPUT_BODY_LIMIT_BYTES = MAX_LIVE_INPUT_PASTE_LENGTH * 6 + 512;

/** The named keys a viewer may send (the worker presses no other); anything else typed arrives as text. */
const KEYS: ReadonlySet<string> = new Set(LIVE_INPUT_KEYS);
const PHASES: ReadonlySet<string> = new Set(LIVE_INPUT_POINTER_PHASES);

const fraction = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= 1;
const finite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);
const clampDelta = (n: number) =>
  Math.min(MAX_LIVE_INPUT_SCROLL_DELTA, Math.max(-MAX_LIVE_INPUT_SCROLL_DELTA, n));
const codes = (text: string) => Array.from(text, (char) => char.codePointAt(0) ?? 0);
/** Printable characters: control characters go as named keys. */
const printable = (code: number) => code >= 0x20 && code !== 0x7f;
/** A paste keeps its line breaks and tabs (the page inserts them as the text's own). */
const pastable = (code: number) => printable(code) || code === 0x09 || code === 0x0a || code === 0x0d;

/** The text, when it is a string of 1 to `max` characters all `allowed`; otherwise null. */
function textOf(text: unknown, max: number, allowed: (code: number) => boolean): string | null {
  return typeof text === 'string' && text.length > 0 && text.length <= max && codes(text).every(allowed)
    ? text
    : null;
}

/** The input a viewer posted, or null when it is not one the worker can dispatch. */
export function parseLiveInput(body: unknown): LiveInput | null {
  if (typeof body !== 'object' || body === null) return null;
  const value = body as Record<string, unknown>;
  switch (value.kind) {
    case 'click':
      return fraction(value.x) && fraction(value.y) ? { kind: 'click', x: value.x, y: value.y } : null;
    case 'key':
      return typeof value.key === 'string' && KEYS.has(value.key) ? { kind: 'key', key: value.key } : null;
    case 'text': {
      const text = textOf(value.text, MAX_LIVE_INPUT_TEXT_LENGTH, printable);
      return text === null ? null : { kind: 'text', text };
    }
    case 'scroll':
      return fraction(value.x) && fraction(value.y) && finite(value.deltaX) && finite(value.deltaY)
        ? {
            kind: 'scroll',
            x: value.x,
            y: value.y,
            deltaX: clampDelta(value.deltaX),
            deltaY: clampDelta(value.deltaY),
          }
        : null;
    case 'pointer':
      return typeof value.phase === 'string' &&
        PHASES.has(value.phase) &&
        fraction(value.x) &&
        fraction(value.y)
        ? {
            kind: 'pointer',
            phase: value.phase as (typeof LIVE_INPUT_POINTER_PHASES)[number],
            x: value.x,
            y: value.y,
          }
        : null;
    case 'paste': {
      const text = textOf(value.text, MAX_LIVE_INPUT_PASTE_LENGTH, pastable);
      return text === null ? null : { kind: 'paste', text };
    }
    default:
      return null;
  }
}
