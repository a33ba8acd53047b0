import {
  MAX_LIVE_INPUT_PASTE_LENGTH,
  MAX_LIVE_INPUT_SCROLL_DELTA,
  MAX_LIVE_INPUT_TEXT_LENGTH,
  parseLiveInput,
} from './live-input.request';

describe('parseLiveInput', () => {
  it('keeps clicks, named keys and typed text as before', () => {
    expect(parseLiveInput({ kind: 'click', x: 0.25, y: 1 })).toEqual({ kind: 'click', x: 0.25, y: 1 });
    expect(parseLiveInput({ kind: 'key', key: 'Enter' })).toEqual({ kind: 'key', key: 'Enter' });
    expect(parseLiveInput({ kind: 'text', text: 'a' })).toEqual({ kind: 'text', text: 'a' });
    expect(parseLiveInput({ kind: 'key', key: 'F5' })).toBeNull();
    expect(parseLiveInput({ kind: 'text', text: 'a\nb' })).toBeNull();
    expect(parseLiveInput({ kind: 'text', text: 'x'.repeat(MAX_LIVE_INPUT_TEXT_LENGTH + 1) })).toBeNull();
  });

  it('takes a scroll at a point, clamping its deltas', () => {
    expect(parseLiveInput({ kind: 'scroll', x: 0.5, y: 0.5, deltaX: 0, deltaY: 120 })).toEqual({
      kind: 'scroll',
      x: 0.5,
      y: 0.5,
      deltaX: 0,
      deltaY: 120,
    });
    expect(parseLiveInput({ kind: 'scroll', x: 0, y: 1, deltaX: -1e9, deltaY: 1e9 })).toEqual({
      kind: 'scroll',
      x: 0,
      y: 1,
      deltaX: -MAX_LIVE_INPUT_SCROLL_DELTA,
      deltaY: MAX_LIVE_INPUT_SCROLL_DELTA,
    });
  });

  it.each([
    { kind: 'scroll', x: 1.5, y: 0.5, deltaX: 0, deltaY: 10 },
    { kind: 'scroll', x: 0.5, y: 0.5, deltaX: 0 },
    { kind: 'scroll', x: 0.5, y: 0.5, deltaX: 0, deltaY: '10' },
    { kind: 'scroll', x: 0.5, y: 0.5, deltaX: Number.NaN, deltaY: 10 },
  ])('refuses a malformed scroll %j', (input) => {
    expect(parseLiveInput(input)).toBeNull();
  });

  it('takes each phase of a drag and nothing else', () => {
    for (const phase of ['down', 'move', 'up'] as const) {
      expect(parseLiveInput({ kind: 'pointer', phase, x: 0.1, y: 0.9 })).toEqual({
        kind: 'pointer',
        phase,
        x: 0.1,
        y: 0.9,
      });
    }
    expect(parseLiveInput({ kind: 'pointer', phase: 'hover', x: 0.1, y: 0.9 })).toBeNull();
    expect(parseLiveInput({ kind: 'pointer', phase: 'move', x: -0.1, y: 0.9 })).toBeNull();
    expect(parseLiveInput({ kind: 'pointer', x: 0.1, y: 0.9 })).toBeNull();
  });

  it('takes a paste of plain text with its line breaks, up to the cap', () => {
    expect(parseLiveInput({ kind: 'paste', text: 'line one\r\nline\ttwo' })).toEqual({
      kind: 'paste',
      text: 'line one\r\nline\ttwo',
    });
    const longest = 'é'.repeat(MAX_LIVE_INPUT_PASTE_LENGTH);
    expect(parseLiveInput({ kind: 'paste', text: longest })).toEqual({ kind: 'paste', text: longest });
    expect(parseLiveInput({ kind: 'paste', text: `${longest}x` })).toBeNull();
    expect(parseLiveInput({ kind: 'paste', text: '' })).toBeNull();
    expect(parseLiveInput({ kind: 'paste', text: 'bell\u0007' })).toBeNull();
    expect(parseLiveInput({ kind: 'paste', text: 42 })).toBeNull();
  });

  it('refuses what is not an input', () => {
    for (const body of [null, 'click', [], {}, { kind: 'drop', x: 0, y: 0 }]) {
      expect(parseLiveInput(body)).toBeNull();
    }
  });
});
