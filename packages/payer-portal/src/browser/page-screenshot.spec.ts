import { type Page } from 'playwright-core';
import { captureScreenshot, isMomentaryCaptureRefusal } from './page-screenshot';

/** A page whose screenshot answers from a script of outcomes, counting what it was asked. */
function scriptedPage(outcomes: Array<Error | Buffer>) {
  const calls = { screenshot: 0, evaluate: 0 };
  const page = {
    screenshot: async () => {
      const outcome = outcomes[calls.screenshot++];
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
    evaluate: async () => {
      calls.evaluate += 1;
    },
  } as unknown as Page;
  return { page, calls };
}

const refusal = () =>
  new Error('page.screenshot: Protocol error (Page.captureScreenshot): Unable to capture screenshot');

describe('captureScreenshot', () => {
  it('asks again after a momentary refusal, waiting for a frame between', async () => {
    const png = Buffer.from('png');
    const { page, calls } = scriptedPage([refusal(), png]);
    await expect(captureScreenshot(page, { type: 'png' })).resolves.toBe(png);
    expect(calls).toEqual({ screenshot: 2, evaluate: 1 });
  });

  it('gives up after three refusals with the last one', async () => {
    const { page, calls } = scriptedPage([refusal(), refusal(), refusal(), Buffer.from('never')]);
    await expect(captureScreenshot(page, { type: 'png' })).rejects.toThrow(/Unable to capture screenshot/);
    expect(calls.screenshot).toBe(3);
  });

  it('does not retry any other failure', async () => {
    const { page, calls } = scriptedPage([new Error('Target page, context or browser has been closed')]);
    await expect(captureScreenshot(page, { type: 'png' })).rejects.toThrow(/has been closed/);
    expect(calls.screenshot).toBe(1);
  });

  it.each([
    [refusal(), true],
    [new Error('Timeout 30000ms exceeded'), false],
    ['Unable to capture screenshot', false],
  ])('recognizes %p as momentary: %p', (error, expected) => {
    expect(isMomentaryCaptureRefusal(error)).toBe(expected);
  });
});
