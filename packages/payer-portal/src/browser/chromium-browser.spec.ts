import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserUnavailableError } from './browser-executable';
import { ChromiumBrowser } from './chromium-browser';

// A missing or broken browser is a clear start-up error, never a hang (decision 0017).
describe('ChromiumBrowser start-up errors', () => {
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'browser-spec-'));
  });

  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  const script = (name: string, body: string) => {
    const path = join(folder, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };

  it('names a BROWSER_EXECUTABLE_PATH that does not exist', async () => {
    const browser = new ChromiumBrowser({ executablePath: join(folder, 'no-such-chromium') });
    const failure = browser.ensureStarted();
    await expect(failure).rejects.toBeInstanceOf(BrowserUnavailableError);
    await expect(failure).rejects.toThrow(
      /BROWSER_EXECUTABLE_PATH=.*no-such-chromium is not an executable file/,
    );
  });

  it('reports a program that exits at once instead of starting a browser', async () => {
    const browser = new ChromiumBrowser({
      executablePath: script('exits', 'echo "not a browser" >&2; exit 3'),
    });
    await expect(browser.ensureStarted()).rejects.toThrow(/did not start/);
  });

  it('gives up on a program that never answers within the launch timeout', async () => {
    const browser = new ChromiumBrowser({
      executablePath: script('hangs', 'exec sleep 30'),
      launchTimeoutMs: 1_000,
    });
    const started = Date.now();
    await expect(browser.ensureStarted()).rejects.toBeInstanceOf(BrowserUnavailableError);
    expect(Date.now() - started).toBeLessThan(10_000);
    await browser.close();
  });
});

describe('ChromiumBrowser after a crash', () => {
  it('hands out a context of a relaunched browser at once, even before the old one reports its end', async () => {
    const browser = new ChromiumBrowser({ executablePath: process.env.BROWSER_EXECUTABLE_PATH });
    try {
      const first = await browser.newContext();
      const dead = first.browser()!;
      // The run right after a crash starts before the end is reported: it gets a context of a new browser.
      const closing = dead.close();
      const next = await browser.newContext();
      await closing;
      expect(next.browser()).not.toBe(dead);
      expect(next.browser()!.isConnected()).toBe(true);
      await next.close();
    } finally {
      await browser.close();
    }
  });
});

describe('loading Playwright', () => {
  it('waits for the first browser: importing the package does not load it', async () => {
    let loaded = false;
    await jest.isolateModulesAsync(async () => {
      jest.doMock('playwright-core', () => {
        loaded = true;
        return {};
      });
      await import('../index');
    });
    expect(loaded).toBe(false);
  });
});
