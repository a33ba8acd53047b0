import type { ResourceEvent, TenantScope } from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import type { PgBoss } from 'pg-boss';
import {
  READABLE_EVENTS,
  ResourceEventEntity,
  type ReadableEventRow,
  type ResourceEventRow,
} from '../events/resource-event.entity';
import { toResourceEvent, toResourceEventRow } from '../events/resource-event.mapper';
import { insertStatement, rowTable, runSql } from '../unit-of-work/sql';
import { WEBHOOK_DELIVERY_QUEUE } from '../outbox/job-queues';
import { transactionDatabase } from '../outbox/pg-boss-job-queue';
import {
  fanOutWebhookDeliveries,
  NEW_ATTEMPT_TOKEN_SQL,
  type WebhookDeliveryJobData,
} from './webhook-delivery-fan-out';
import { tenantParameters } from '../unit-of-work/tenant-bound';
import type { WebhookEndpointRow } from './webhook-endpoint.entity';
import { toWebhookEndpoint } from './webhook-endpoint.mapper';

/** One attempt to send a delivery, as recorded (docs/decisions/0031-events-and-webhooks.md). */
export interface WebhookAttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

/** A pending delivery with what sending it needs. */
export interface PendingWebhookDelivery {
  id: string;
  attemptCount: number;
  createdAt: Date;
  event: ResourceEvent;
  endpoint: ReturnType<typeof toWebhookEndpoint>;
  /** When the endpoint's current run of failures began; null while it succeeds. */
  endpointFailingSince: Date | null;
  /** Whether an earlier delivery of the same case to the same endpoint is still pending (order per case). */
  waitsForEarlier: boolean;
}

/** After an attempt: delivered, sent again at `retryAt`, or given up (and the endpoint maybe disabled). */
export type WebhookAttemptOutcome =
  | { kind: 'succeeded' }
  | { kind: 'retry'; retryAt: Date }
  | { kind: 'failed'; disableEndpoint: boolean; disabledEvent?: ResourceEvent };

const EVENTS = rowTable(ResourceEventEntity);

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  authorization_id: string | null;
  status: string;
  attempt_count: number;
  created_at: Date;
  sequence: string;
  attempt_token: string | null;
}

/** The job's token, or null for a job sent before tokens existed (it matches a row without one). */
const tokenOf = (job: WebhookDeliveryJobData): string | null => job.token ?? null;

/**
 * The worker's side of webhook deliveries on PostgreSQL: reads a pending delivery with its event and
 * endpoint, and records each attempt with the delivery's new state in one transaction.
 *
 * One attempt at a time (docs/decisions/0037-webhook-versions-attempts-and-request-schemas.md): a delivery holds an
 * attempt token, and only the job carrying it may send. Every job that follows (a wait for order, a retry
 * with backoff, a manual retry) is sent with a new token in the transaction that makes the token the
 * delivery's, so the job it replaces finds itself stale and sends nothing.
 */
export class PostgresWebhookDeliveryStore {
  constructor(
    private readonly dataSource: DataSource,
    /** Enqueues the deliveries of a `webhook_endpoint.disabled` event (to the tenant's other endpoints). */
    private readonly boss?: PgBoss,
  ) {}

  /**
   * The delivery if it is still pending, the job's token is still its token and its event still exists;
   * null otherwise (nothing to send).
   */
  async loadPending(scope: TenantScope, job: WebhookDeliveryJobData): Promise<PendingWebhookDelivery | null> {
    const manager = this.dataSource.manager;
    const tenant = tenantParameters(scope);
    const { rows } = await runSql<DeliveryRow>(
      manager,
      `SELECT * FROM webhook_deliveries WHERE organization_id = $1 AND environment = $2 AND id = $3`,
      [...tenant, job.deliveryId],
    );
    const delivery = rows[0];
    if (delivery === undefined || delivery.status !== 'pending') return null;
    if (delivery.attempt_token !== tokenOf(job)) return null;
    const events = await runSql<ReadableEventRow>(
      manager,
      `SELECT * FROM ${READABLE_EVENTS} WHERE organization_id = $1 AND environment = $2 AND id = $3`,
      [...tenant, delivery.event_id],
    );
    const endpoints = await runSql<WebhookEndpointRow & { failing_since: Date | null }>(
      manager,
      'SELECT * FROM webhook_endpoints WHERE organization_id = $1 AND environment = $2 AND id = $3',
      [...tenant, delivery.endpoint_id],
    );
    const event = events.rows[0];
    const endpoint = endpoints.rows[0];
    if (event === undefined || endpoint === undefined) return null;
    let waitsForEarlier = false;
    if (delivery.authorization_id !== null) {
      const earlier = await runSql(
        manager,
        `SELECT 1 FROM webhook_deliveries WHERE organization_id = $1 AND environment = $2
           AND endpoint_id = $3 AND authorization_id = $4 AND status = 'pending' AND sequence < $5 LIMIT 1`,
        [...tenant, delivery.endpoint_id, delivery.authorization_id, delivery.sequence],
      );
      waitsForEarlier = earlier.rows.length > 0;
    }
    return {
      id: delivery.id,
      attemptCount: delivery.attempt_count,
      createdAt: delivery.created_at,
      event: toResourceEvent(event),
      endpoint: toWebhookEndpoint(endpoint),
      endpointFailingSince: endpoint.failing_since,
      waitsForEarlier,
    };
  }

  /**
   * Marks the job's send as in flight, if the job still holds the delivery's token; false when it does not
   * (nothing is to be sent). A job run again after its worker died holds the same token and claims again.
   */
  async claim(scope: TenantScope, job: WebhookDeliveryJobData, now: Date): Promise<boolean> {
    const { rows } = await runSql(
      this.dataSource.manager,
      `UPDATE webhook_deliveries SET sending_since = $5
       WHERE organization_id = $1 AND environment = $2 AND id = $3 AND status = 'pending'
         AND attempt_token IS NOT DISTINCT FROM $4
       RETURNING id`,
      [...tenantParameters(scope), job.deliveryId, tokenOf(job), now],
    );
    return rows.length > 0;
  }

  /**
   * Hands the delivery to a new job at `runAt` (a wait for order), with a new token, in one transaction;
   * false (and no job) when the job no longer holds the delivery's token.
   */
  async defer(scope: TenantScope, job: WebhookDeliveryJobData, runAt: Date): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const token = await this.replaceToken(manager, scope, job, 'next_attempt_at = $5', [runAt]);
      if (token === null) return false;
      await this.sendJob(manager, { ...job, token }, runAt);
      return true;
    });
  }

  /**
   * Records an attempt and the delivery's new state; on success the endpoint's failure run ends, on failure
   * it begins (if not already running), and `disableEndpoint` disables the endpoint. A retry's job is sent
   * in the same transaction, with a new token. Returns false when the job no longer held the delivery's
   * token (a manual retry replaced it, or the delivery is no longer pending): nothing is written then.
   */
  async recordAttempt(
    scope: TenantScope,
    job: WebhookDeliveryJobData,
    attempt: WebhookAttemptRecord,
    outcome: WebhookAttemptOutcome,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const tenant = tenantParameters(scope);
      const deliveryId = job.deliveryId;
      const status =
        outcome.kind === 'succeeded' ? 'succeeded' : outcome.kind === 'retry' ? 'pending' : 'failed';
      const updated = await runSql<{ endpoint_id: string; attempt_count: number; attempt_token: string }>(
        manager,
        `UPDATE webhook_deliveries SET status = $4, attempt_count = attempt_count + 1, next_attempt_at = $5,
           updated_at = $6, sending_since = NULL, attempt_token = ${NEW_ATTEMPT_TOKEN_SQL}
         WHERE organization_id = $1 AND environment = $2 AND id = $3 AND status = 'pending'
           AND attempt_token IS NOT DISTINCT FROM $7
         RETURNING endpoint_id, attempt_count, attempt_token`,
        [
          ...tenant,
          deliveryId,
          status,
          outcome.kind === 'retry' ? outcome.retryAt : null,
          attempt.attemptedAt,
          tokenOf(job),
        ],
      );
      const row = updated.rows[0];
      if (row === undefined) return false;
      if (outcome.kind === 'retry') {
        await this.sendJob(manager, { ...job, token: row.attempt_token }, outcome.retryAt);
      }
      await runSql(
        manager,
        `INSERT INTO webhook_delivery_attempts (organization_id, environment, delivery_id, attempt_number,
           attempted_at, status_code, duration_ms, response_excerpt, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          ...tenant,
          deliveryId,
          row.attempt_count,
          attempt.attemptedAt,
          attempt.statusCode,
          attempt.durationMs,
          attempt.responseExcerpt,
          attempt.error,
        ],
      );
      await runSql(
        manager,
        outcome.kind === 'succeeded'
          ? `UPDATE webhook_endpoints SET failing_since = NULL
             WHERE organization_id = $1 AND environment = $2 AND id = $3`
          : `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $4)
             WHERE organization_id = $1 AND environment = $2 AND id = $3`,
        outcome.kind === 'succeeded'
          ? [...tenant, row.endpoint_id]
          : [...tenant, row.endpoint_id, attempt.attemptedAt],
      );
      if (outcome.kind === 'failed' && outcome.disableEndpoint) {
        const disabled = await runSql(
          manager,
          `UPDATE webhook_endpoints SET disabled = true, version = version + 1, updated_at = $4
           WHERE organization_id = $1 AND environment = $2 AND id = $3 AND NOT disabled`,
          [...tenant, row.endpoint_id, attempt.attemptedAt],
        );
        // The event telling so, written with the change like every event, and fanned out the same way.
        if (disabled.rowCount === 1 && outcome.disabledEvent !== undefined) {
          const insert = insertStatement(EVENTS, [
            toResourceEventRow(outcome.disabledEvent) as ResourceEventRow,
          ]);
          await fanOutWebhookDeliveries(manager, scope, this.boss, [outcome.disabledEvent], insert);
        }
      }
      return true;
    });
  }

  /** Gives the delivery a new token if `job` holds the current one; the new token, or null. */
  private async replaceToken(
    manager: EntityManager,
    scope: TenantScope,
    job: WebhookDeliveryJobData,
    set: string,
    extra: unknown[],
  ): Promise<string | null> {
    const { rows } = await runSql<{ attempt_token: string }>(
      manager,
      `UPDATE webhook_deliveries SET attempt_token = ${NEW_ATTEMPT_TOKEN_SQL}, ${set}
       WHERE organization_id = $1 AND environment = $2 AND id = $3 AND status = 'pending'
         AND attempt_token IS NOT DISTINCT FROM $4
       RETURNING attempt_token`,
      [...tenantParameters(scope), job.deliveryId, tokenOf(job), ...extra],
    );
    return rows[0]?.attempt_token ?? null;
  }

  private async sendJob(manager: EntityManager, data: WebhookDeliveryJobData, runAt: Date): Promise<void> {
    if (this.boss === undefined) throw new Error('webhook delivery store has no job queue configured');
    const id = await this.boss.send(WEBHOOK_DELIVERY_QUEUE, data, {
      startAfter: runAt,
      db: transactionDatabase(manager),
    });
    if (id === null) throw new Error(`webhook delivery ${data.deliveryId} was not enqueued`);
  }
}
