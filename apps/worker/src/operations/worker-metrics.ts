import { readOperationalMetrics, type CountRow } from '@prior-auth/persistence-postgres';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { LivePageCounts } from '@prior-auth/payer-portal';

export interface WorkerMetrics {
  registry: Registry;
  /** Times every portal run (see meteredPayerPortal). */
  portalRuns: Histogram<'environment' | 'operation' | 'outcome'>;
  /** The Prometheus text: the shared state read from the database now, and this process's own series. */
  render(): Promise<string>;
}

/**
 * The worker's metrics (docs/decisions/0034-operability.md). Queue, case, handoff and webhook series are read
 * from PostgreSQL at scrape time, so every worker reports the same shared values: aggregate them across
 * workers with `max`, not `sum`. Portal runs are this process's own.
 */
export function createWorkerMetrics(
  dataSource: DataSource,
  /** This process's live-session pages (decision 0033), read at each scrape. */
  livePages: () => LivePageCounts,
): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'prior_auth_worker_' });
  const registers = [registry];
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge<L>({ name, help, labelNames, registers });
  const up = gauge('prior_auth_operational_metrics_up', '1 when the database answered this scrape.', []);
  const queueJobs = gauge('prior_auth_queue_jobs', 'Jobs by queue and state (due, scheduled, active).', [
    'queue',
    'state',
  ]);
  const oldestDue = gauge(
    'prior_auth_queue_oldest_due_job_age_seconds',
    'How long the longest-waiting due job of each queue has been due (0 when none is).',
    ['queue'],
  );
  const failedJobs = gauge(
    'prior_auth_queue_failed_jobs',
    'Failed jobs still retained, by queue (their retries ran out or they failed permanently).',
    ['queue'],
  );
  const cases = gauge('prior_auth_cases', 'Prior-authorization cases by environment and status.', [
    'environment',
    'status',
  ]);
  const overdue = gauge(
    'prior_auth_decisions_overdue',
    'Cases waiting on the payer past their decision due time.',
    ['environment'],
  );
  const handoffs = gauge('prior_auth_manual_handoffs_open', 'Manual handoffs not closed, by state.', [
    'environment',
    'state',
  ]);
  const deliveries = gauge('prior_auth_webhook_deliveries', 'Webhook deliveries by status.', [
    'environment',
    'status',
  ]);
  const portalRuns = new Histogram({
    name: 'prior_auth_portal_run_duration_seconds',
    help: 'Payer portal runs of this process by environment, operation and outcome.',
    labelNames: ['environment', 'operation', 'outcome'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers,
  });
  new Gauge({
    name: 'prior_auth_live_session_pages',
    help: "This worker's portal pages shown as live sessions: running, or held for a person.",
    registers,
    collect() {
      this.set(livePages().pages);
    },
  });
  new Gauge({
    name: 'prior_auth_live_session_screencasts',
    help: 'Of those pages, the ones Chromium is screencasting now: watched, or recording their replay.',
    registers,
    collect() {
      this.set(livePages().screencasts);
    },
  });
  const setCounts = (target: Gauge<'environment' | 'status'>, rows: CountRow[]) => {
    for (const row of rows) target.set({ environment: row.environment, status: row.label }, row.count);
  };

  return {
    registry,
    portalRuns,
    async render() {
      for (const metric of [queueJobs, oldestDue, failedJobs, cases, overdue, handoffs, deliveries])
        metric.reset();
      try {
        const state = await readOperationalMetrics(dataSource);
        for (const queue of state.queues) {
          queueJobs.set({ queue: queue.queue, state: 'due' }, queue.due);
          queueJobs.set({ queue: queue.queue, state: 'scheduled' }, queue.scheduled);
          queueJobs.set({ queue: queue.queue, state: 'active' }, queue.active);
          oldestDue.set({ queue: queue.queue }, queue.oldestDueAgeSeconds);
          failedJobs.set({ queue: queue.queue }, queue.failed);
        }
        setCounts(cases, state.cases);
        setCounts(deliveries, state.webhookDeliveries);
        for (const row of state.decisionsOverdue) overdue.set({ environment: row.environment }, row.count);
        for (const row of state.openManualHandoffs) {
          handoffs.set({ environment: row.environment, state: row.label }, row.count);
        }
        up.set(1);
      } catch {
        up.set(0);
      }
      return registry.metrics();
    },
  };
}
