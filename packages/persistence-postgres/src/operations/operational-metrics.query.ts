import type { DataSource } from 'typeorm';
import { JOB_TABLE } from '../outbox/pg-boss-job-queue';

export interface QueueRow {
  queue: string;
  /** Jobs due now and not yet claimed. */
  due: number;
  /** Jobs waiting for a later start (backoff, a scheduled poll). */
  scheduled: number;
  active: number;
  /** Failed jobs still retained in the queue's table. */
  failed: number;
  /** Seconds the longest-waiting due job has been due; 0 when none is. */
  oldestDueAgeSeconds: number;
}

export interface CountRow {
  environment: string;
  label: string;
  count: number;
}

export interface OperationalMetrics {
  queues: QueueRow[];
  /** Cases by status. */
  cases: CountRow[];
  /** Cases waiting on the payer past their decision due time (one row per environment, label ''). */
  decisionsOverdue: CountRow[];
  /** Manual handoffs not closed, by state. */
  openManualHandoffs: CountRow[];
  /** Webhook deliveries by status (pending, succeeded, failed). */
  webhookDeliveries: CountRow[];
}

const counts = (rows: Array<{ environment: string; label: string | null; count: string }>): CountRow[] =>
  rows.map((row) => ({ environment: row.environment, label: row.label ?? '', count: Number(row.count) }));

/**
 * What the worker's `/metrics` reports about the shared state, read at scrape time (docs/decisions/0034-operability.md):
 * the job queues, the cases, overdue decisions, open manual handoffs and webhook deliveries, across tenants.
 * Counts only: no identifier or tenant leaves this query.
 */
export async function readOperationalMetrics(dataSource: DataSource): Promise<OperationalMetrics> {
  const [queues, cases, overdue, handoffs, deliveries] = await Promise.all([
    dataSource.query(
      `SELECT name AS queue,
              count(*) FILTER (WHERE state IN ('created', 'retry') AND start_after <= now()) AS due,
              count(*) FILTER (WHERE state IN ('created', 'retry') AND start_after > now()) AS scheduled,
              count(*) FILTER (WHERE state = 'active') AS active,
              count(*) FILTER (WHERE state = 'failed') AS failed,
              coalesce(extract(epoch FROM now() - min(start_after)
                FILTER (WHERE state IN ('created', 'retry') AND start_after <= now())), 0) AS oldest
         FROM ${JOB_TABLE}
        GROUP BY name`,
    ) as Promise<Array<Record<string, string>>>,
    dataSource.query(
      `SELECT environment, status AS label, count(*) AS count FROM authorizations GROUP BY environment, status`,
    ),
    dataSource.query(
      `SELECT environment, NULL AS label, count(*) AS count FROM authorizations
        WHERE status = 'waiting_on_payer' AND decision_due_at < now() GROUP BY environment`,
    ),
    dataSource.query(
      `SELECT environment, state AS label, count(*) AS count FROM manual_handoffs
        WHERE state <> 'closed' GROUP BY environment, state`,
    ),
    dataSource.query(
      `SELECT environment, status AS label, count(*) AS count FROM webhook_deliveries GROUP BY environment, status`,
    ),
  ]);
  return {
    queues: queues.map((row) => ({
      queue: String(row.queue),
      due: Number(row.due),
      scheduled: Number(row.scheduled),
      active: Number(row.active),
      failed: Number(row.failed),
      oldestDueAgeSeconds: Number(row.oldest),
    })),
    cases: counts(cases),
    decisionsOverdue: counts(overdue),
    openManualHandoffs: counts(handoffs),
    webhookDeliveries: counts(deliveries),
  };
}
