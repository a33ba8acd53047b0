import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Structured JSON logs. Secrets and request bodies never reach the logger: the redaction list is a second
 * line of defence for headers that might be logged by accident. `destination` lets tests capture the lines.
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
    options.destination ?? process.stdout,
  );
}
