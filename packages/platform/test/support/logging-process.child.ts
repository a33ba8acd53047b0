/*
 * A process that logs LINES lines through the default (asynchronous) destination, then either awaits
 * `flushLogger` and exits (MODE=flush, what the services do on shutdown) or exits at once (MODE=exit).
 */
import { createLogger, flushLogger } from '../../src/logger';

const lines = Number(process.env.LINES);
const logger = createLogger({ name: 'flush-test' });
for (let i = 0; i < lines; i += 1) logger.info({ line: i }, 'a line that is long enough to fill buffers');
if (process.env.MODE === 'flush') {
  void flushLogger(logger).then(() => process.exit(0));
} else {
  process.exit(0);
}
