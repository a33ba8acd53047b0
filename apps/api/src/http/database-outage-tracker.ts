import type { Logger } from '@prior-auth/platform';

/** How long the database must answer without a refusal in between before an outage is logged as over. */
const SETTLE_MS = 1_000;

/**
 * Logs a database outage once when it starts and once when it ends (with how many requests were answered
 * 503), instead of one error line per refused request: an outage under load refuses thousands of requests a
 * second. Logging state only, one per process (docs/decisions/0015-hostile-input-and-outages.md).
 */
export class DatabaseOutageTracker {
  private outage: { startedAt: number; lastRefusedAt: number; refused: number } | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** A request was answered `503 service_unavailable` because the database could not be used. */
  refused(error: unknown): void {
    const now = this.now();
    if (this.outage) {
      this.outage.refused += 1;
      this.outage.lastRefusedAt = now;
      return;
    }
    this.outage = { startedAt: now, lastRefusedAt: now, refused: 1 };
    // The driver's message names the failure (refused, terminated, too many clients), never data or secrets.
    this.logger.warn(
      { err: { name: (error as Error)?.name, message: rootMessage(error) } },
      'database unavailable: answering 503 service_unavailable until it is back',
    );
  }

  /** The database just answered a query. Ends the outage once refusals have stopped (no flapping lines). */
  answered(): void {
    if (!this.outage) return;
    const now = this.now();
    if (now - this.outage.lastRefusedAt < SETTLE_MS) return;
    const { startedAt, refused } = this.outage;
    this.outage = null;
    this.logger.info({ outageMs: now - startedAt, refusedRequests: refused }, 'database available again');
  }

  get inOutage(): boolean {
    return this.outage !== null;
  }
}

/** The innermost cause's message: the driver error, not the wrapper that only says "unavailable". */
function rootMessage(error: unknown): string | undefined {
  let current = error;
  for (let depth = 0; depth < 8; depth += 1) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (!(cause instanceof Error)) break;
    current = cause;
  }
  if (!(current instanceof Error)) return undefined;
  // Node reports every refused address of a host name as one AggregateError with an empty message.
  return current.message || (current as { code?: string }).code;
}
