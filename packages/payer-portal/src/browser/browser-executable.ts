import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Why no browser could be started: always a clear, single-line start-up error, never a hang. */
export class BrowserUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BrowserUnavailableError';
  }
}

/** How long unpacking the packaged Chromium may take (it is about 70 MB, unpacked once per machine). */
const UNPACK_TIMEOUT_MS = 120_000;

/**
 * The Chromium to launch: `configuredPath` (BROWSER_EXECUTABLE_PATH) when given, else the Chromium packaged
 * in the npm dependency, so a fresh `pnpm install` needs no browser download (decision 0017).
 */
export async function resolveBrowserExecutable(configuredPath?: string): Promise<string> {
  if (configuredPath) {
    try {
      accessSync(configuredPath, constants.X_OK);
    } catch (error) {
      throw new BrowserUnavailableError(
        `BROWSER_EXECUTABLE_PATH=${configuredPath} is not an executable file; point it at a Chromium or unset it to use the packaged one.`,
        { cause: error },
      );
    }
    return configuredPath;
  }
  return packagedChromium();
}

let packaged: Promise<string> | null = null;

/**
 * The packaged Chromium ships as an ES module, which neither this CommonJS build nor Jest's module runtime can
 * load directly; a short child process resolves it (unpacking on first use) and prints the path.
 */
function packagedChromium(): Promise<string> {
  packaged ??= new Promise<string>((resolve, reject) => {
    let entry: string;
    try {
      entry = require.resolve('@sparticuz/chromium');
    } catch (error) {
      reject(
        new BrowserUnavailableError(
          'No browser: the packaged Chromium is not installed (run pnpm install) and BROWSER_EXECUTABLE_PATH is unset.',
          { cause: error },
        ),
      );
      return;
    }
    const script = `const m = await import(${JSON.stringify(pathToFileURL(entry).href)}); process.stdout.write(await m.default.executablePath());`;
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { timeout: UNPACK_TIMEOUT_MS, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const path = stdout.trim();
        if (error || !path) {
          reject(
            new BrowserUnavailableError(
              `No browser: unpacking the packaged Chromium failed (${(stderr || String(error)).trim().split('\n')[0]}); set BROWSER_EXECUTABLE_PATH to a system Chromium.`,
              { cause: error },
            ),
          );
          return;
        }
        resolve(path);
      },
    );
  });
  packaged.catch(() => {
    packaged = null;
  });
  return packaged;
}
