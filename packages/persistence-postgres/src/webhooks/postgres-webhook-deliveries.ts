import {
  WEBHOOK_SEND_IN_FLIGHT_MS,
  type Page,
  type TenantScope,
  type WebhookDeliveries,
  type WebhookDeliveryStatus,
  type WebhookDeliveryView,
} from '@prior-auth/domain';
import type { PgBoss } from 'pg-boss';
import type { DataSource, EntityManager } from 'typeorm';
import { WEBHOOK_DELIVERY_QUEUE } from '../outbox/job-queues';
import { transactionDatabase } from '../outbox/pg-boss-job-queue';
import { assertPageLimit, type CursorBinding, type KeysetCursors } from '../pagination/keyset-cursor';
import { runSql } from '../unit-of-work/sql';
import { tenantParameters } from '../unit-of-work/tenant-bound';
import { NEW_ATTEMPT_TOKEN_SQL, type WebhookDeliveryJobData } from './webhook-delivery-fan-out';

interface DeliveryRow {
  sequence: string;
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  authorization_id: string | null;
  status: WebhookDeliveryStatus;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  attempt_number: number;
  attempted_at: Date;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

/**
 * The API's side of webhook deliveries (docs/decisions/0031-events-and-webhooks.md): an endpoint's deliveries
 * newest first with their attempts, under a signed cursor bound to the tenant and the endpoint; a retry makes
 * a delivery pending and enqueues its job in the same transaction.
 */
export class PostgresWebhookDeliveries implements WebhookDeliveries {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: KeysetCursors,
    private readonly boss: PgBoss,
  ) {}

  async list(
    scope: TenantScope,
    endpointId: string,
    query: { limit: number; cursor?: string },
  ): Promise<Page<WebhookDeliveryView>> {
    assertPageLimit(query.limit);
    const binding: CursorBinding = { resource: 'webhook_deliveries', scope, filters: { endpointId } };
    const after = query.cursor === undefined ? null : this.cursors.decodeAfterId(binding, query.cursor);
    const parameters: unknown[] = [...tenantParameters(scope), endpointId];
    let sql =
      'SELECT * FROM webhook_deliveries WHERE organization_id = $1 AND environment = $2 AND endpoint_id = $3';
    if (after !== null) {
      parameters.push(after);
      sql += ` AND sequence < $${parameters.length}`;
    }
    parameters.push(query.limit + 1);
    sql += ` ORDER BY sequence DESC LIMIT $${parameters.length}`;
    const manager = this.dataSource.manager;
    const { rows } = await runSql<DeliveryRow>(manager, sql, parameters);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const nextCursor =
      rows.length > query.limit && last !== undefined
        ? this.cursors.encodeAfterId(binding, String(last.sequence))
        : null;
    return { items: await this.withAttempts(manager, scope, page), nextCursor };
  }

  async retry(
    scope: TenantScope,
    endpointId: string,
    deliveryId: string,
    now: Date,
  ): Promise<WebhookDeliveryView | null> {
    return this.dataSource.transaction(async (manager) => {
      const tenant = [...tenantParameters(scope), endpointId, deliveryId];
      // The row lock orders concurrent retries and the worker's claim: each sees what the other committed.
      const locked = await runSql<DeliveryRow & { sending_since: Date | null }>(
        manager,
        `SELECT * FROM webhook_deliveries
         WHERE organization_id = $1 AND environment = $2 AND endpoint_id = $3 AND id = $4 FOR UPDATE`,
        tenant,
      );
      const current = locked.rows[0];
      if (current === undefined) return null;
      const inFlight =
        current.status === 'pending' &&
        current.sending_since !== null &&
        now.getTime() - current.sending_since.getTime() < WEBHOOK_SEND_IN_FLIGHT_MS;
      if (inFlight) {
        const [view] = await this.withAttempts(manager, scope, [current]);
        return view ?? null;
      }
      // A new token: whatever job held the old one (a follow-up waiting for its backoff) sends nothing.
      const { rows } = await runSql<DeliveryRow & { attempt_token: string }>(
        manager,
        `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $5, updated_at = $5,
           sending_since = NULL, attempt_token = ${NEW_ATTEMPT_TOKEN_SQL}
         WHERE organization_id = $1 AND environment = $2 AND endpoint_id = $3 AND id = $4
         RETURNING *`,
        [...tenant, now],
      );
      const row = rows[0];
      if (row === undefined) return null;
      const data: WebhookDeliveryJobData = { ...scope, deliveryId, token: row.attempt_token };
      const id = await this.boss.send(WEBHOOK_DELIVERY_QUEUE, data, { db: transactionDatabase(manager) });
      if (id === null) throw new Error(`webhook delivery ${deliveryId} was not enqueued`);
      const [view] = await this.withAttempts(manager, scope, [row]);
      return view ?? null;
    });
  }

  private async withAttempts(
    manager: EntityManager,
    scope: TenantScope,
    rows: DeliveryRow[],
  ): Promise<WebhookDeliveryView[]> {
    if (rows.length === 0) return [];
    const attempts = await runSql<AttemptRow>(
      manager,
      `SELECT * FROM webhook_delivery_attempts
       WHERE organization_id = $1 AND environment = $2 AND delivery_id = ANY ($3::text[])
       ORDER BY attempt_number`,
      [...tenantParameters(scope), rows.map((row) => row.id)],
    );
    return rows.map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      eventId: row.event_id,
      eventType: row.event_type,
      authorizationId: row.authorization_id,
      status: row.status,
      nextAttemptAt: row.next_attempt_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      attempts: attempts.rows
        .filter((attempt) => attempt.delivery_id === row.id)
        .map((attempt) => ({
          attemptNumber: attempt.attempt_number,
          attemptedAt: attempt.attempted_at,
          statusCode: attempt.status_code,
          durationMs: attempt.duration_ms,
          responseExcerpt: attempt.response_excerpt,
          error: attempt.error,
        })),
    }));
  }
}
