import { isDatabaseUnavailable, TypeOrmAuditLog, type AuditEntry } from '@prior-auth/persistence-postgres';
import type { Logger } from '@prior-auth/platform';
import type { Request } from 'express';
import type { DataSource } from 'typeorm';
import { requestContext } from '../http/request-context';

/** How long a read's audit row may wait to be written with others, and how many rows one insert carries. */
export const READ_AUDIT_FLUSH_MS = 200;
const READ_AUDIT_BATCH = 500;
const READ_AUDIT_RETRY_MS = 1_000;
const READ_AUDIT_MAX_PENDING = 50_000;

export type AuditedRead = 'authorization' | 'file';

/**
 * Decision 0035: every read of a case or a file with an API key is written to the append-only `audit_log`
 * (who: the key's id; what: `<subject>.read` and its id; when; the request id), in batches off the request's
 * path, so a read costs no round trip more. Rows wait at most `READ_AUDIT_FLUSH_MS` (or until a batch is
 * full); `close` writes the rest at shutdown. While the database is unreachable, batches wait for it (up to
 * 50,000 rows); a batch it refuses otherwise is logged and dropped, never retried into the requests' way.
 */
export class ReadAuditRecorder {
  private pending: AuditEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly logger: Logger,
  ) {}

  /** One row per subject read by the request (a list reads every item it returns). */
  record(
    req: Request,
    subjectType: AuditedRead,
    subjectIds: readonly string[],
    via: 'retrieve' | 'list',
  ): void {
    const context = requestContext(req);
    const auth = context.auth;
    if (!auth || subjectIds.length === 0) return;
    const occurredAt = new Date();
    for (const subjectId of subjectIds) {
      this.pending.push({
        scope: auth.scope,
        occurredAt,
        actor: `api_key:${auth.apiKeyId}`,
        action: `${subjectType}.read`,
        subjectType,
        subjectId,
        requestId: context.requestId,
        details: { via },
      });
    }
    if (this.pending.length >= READ_AUDIT_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), READ_AUDIT_FLUSH_MS).unref();
  }

  /** Writes what is pending and waits for every write under way. */
  async close(): Promise<void> {
    this.closed = true;
    this.flush();
    await Promise.all([...this.inFlight]);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, READ_AUDIT_BATCH);
      const write = new TypeOrmAuditLog(this.dataSource.manager).append(batch).catch((error: unknown) => {
        // The database is down: the outage is logged once by the requests' own failures (decision 0015), and
        // the rows wait for it to come back (up to a bound; past it they are dropped, and that is logged).
        if (
          !this.closed &&
          isDatabaseUnavailable(error) &&
          this.pending.length + batch.length <= READ_AUDIT_MAX_PENDING
        ) {
          this.pending.unshift(...batch);
          this.timer ??= setTimeout(() => this.flush(), READ_AUDIT_RETRY_MS).unref();
          return;
        }
        this.logger.error({ err: error, rows: batch.length }, 'read audit: rows could not be written');
      });
      this.inFlight.add(write);
      void write.finally(() => this.inFlight.delete(write));
    }
  }
}
