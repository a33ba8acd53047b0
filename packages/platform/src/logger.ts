import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Structured JSON logs. Secrets and request bodies never reach the logger: the redaction list is a second
 * line of defence for headers that might be logged by accident. `destination` lets tests capture the lines.
 *
 * Without a destination, lines go to standard output through pino's asynchronous destination: a synchronous
 * write per line cost about a quarter of the API's CPU under load (docs/performance.md). Lines queue only
 * while a write is in flight (no minimum batch), so an idle process's lines still appear at once for operators
 * and supervisors; queued lines are written when `flushLogger` is awaited at shutdown, and synchronously if the
 * process exits first.
 */
export function createLogger(options: {
  name: string;
  level?: string;
  destination?: pino.DestinationStream;
}): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      base: { service: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'apiKey', 'password'],
        censor: '[redacted]',
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** Writes out every buffered line; call it last on shutdown, before the process exits. */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((done) => logger.flush(() => done()));
}
