/** A process a test started, as far as waiting for it needs. */
export interface WatchedProcess {
  readonly name: string;
  /** False once it has exited. */
  running(): boolean;
  /** Its recent output, to explain a failed start. */
  output(): string;
}

export interface AnsweringOptions {
  /** The answer that means ready; by default any HTTP answer at all. */
  ready?: (response: Response) => boolean;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 100;

/**
 * Resolves once `url` answers as `ready` says. The apps buffer their log (packages/platform/src/logger.ts), so
 * readiness is asked over HTTP rather than read from a ready line that may come late. Fails with the process's
 * output when it exits first or the time runs out.
 */
export async function waitUntilAnswering(
  process: WatchedProcess,
  url: string,
  { ready = () => true, timeoutMs = DEFAULT_TIMEOUT_MS }: AnsweringOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!process.running()) throw new Error(`${process.name} exited before answering\n${process.output()}`);
    const answered = await fetch(url, { redirect: 'manual' }).then(ready, () => false);
    if (answered) return;
    if (Date.now() > deadline) {
      throw new Error(`${process.name} did not answer ${url} in time\n${process.output()}`);
    }
    await new Promise((wait) => setTimeout(wait, POLL_INTERVAL_MS));
  }
}
