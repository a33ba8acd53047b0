import { type Page, type PageScreenshotOptions } from 'playwright-core';

/** Attempts per capture: Chromium's refusal is momentary (a frame being produced), not a state of the page. */
const CAPTURE_ATTEMPTS = 3;

/**
 * `page.screenshot`, asked again when Chromium answers "Unable to capture screenshot". Headless Chromium gives
 * that answer now and then when no compositor frame is ready at the moment of asking (for instance while the
 * run's screencast is encoding one, on a busy machine); the next animation frame captures fine. Any other
 * failure is the run's failure, as before.
 */
export async function captureScreenshot(page: Page, options: PageScreenshotOptions): Promise<Buffer> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await page.screenshot(options);
    } catch (error) {
      if (attempt >= CAPTURE_ATTEMPTS || !isMomentaryCaptureRefusal(error)) throw error;
      // Wait for the page's next frame (observable state) rather than a fixed delay.
      await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => resolve())));
    }
  }
}

export function isMomentaryCaptureRefusal(error: unknown): boolean {
  return error instanceof Error && /Unable to capture screenshot/i.test(error.message);
}
