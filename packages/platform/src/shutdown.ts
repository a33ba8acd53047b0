/**
 * Runs the given cleanups once on SIGINT/SIGTERM, in order, then exits. A second signal forces the exit so
 * an operator is never stuck behind a hung cleanup.
 */
export function onShutdownSignal(
  cleanup: (signal: NodeJS.Signals) => Promise<void>,
  log: (msg: string) => void,
): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`received ${signal} again, exiting now`);
      process.exit(1);
    }
    stopping = true;
    log(`received ${signal}, shutting down`);
    cleanup(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        log(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
