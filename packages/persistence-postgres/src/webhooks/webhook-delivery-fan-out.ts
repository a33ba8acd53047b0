import type { ResourceEvent, TenantScope } from '@prior-auth/domain';
import type { PgBoss } from 'pg-boss';
import type { EntityManager } from 'typeorm';
import { WEBHOOK_DELIVERY_QUEUE } from '../outbox/job-queues';
import { transactionDatabase } from '../outbox/pg-boss-job-queue';
import type { SqlStatement } from '../unit-of-work/sql';
import { writeSql } from '../unit-of-work/write-batch';
import { tenantParameters } from '../unit-of-work/tenant-bound';

/** What a delivery job carries: the delivery to send, and its tenant (docs/decisions/0031-events-and-webhooks.md). */
export interface WebhookDeliveryJobData {
  organizationId: string;
  environment: TenantScope['environment'];
  deliveryId: string;
  /**
   * The delivery's attempt token when the job was sent: the job sends only while it is still the delivery's
   * (docs/decisions/0037-webhook-versions-attempts-and-request-schemas.md). Absent in jobs sent before tokens existed.
   */
  token?: string;
}

/** A fresh attempt token, made by the database so fan-out, retry and follow-up agree on one format. */
export const NEW_ATTEMPT_TOKEN_SQL = "replace(gen_random_uuid()::text, '-', '')";

/** A test event goes to the endpoint it tests only, whatever that endpoint enabled. */
const testTarget = (event: ResourceEvent): string | null =>
  event.type === 'webhook_endpoint.test' && event.snapshot.kind === 'webhook_endpoint'
    ? event.snapshot.endpoint.id
    : null;

/**
 * Fan-out, in the transaction that appends the events: one `webhook_deliveries` row per event and enabled
 * endpoint of the tenant whose `enabledEvents` hold the event's type or `*`, and one delivery job per row
 * (sent on the same connection, so a rolled-back change leaves neither). Deliveries are numbered in the
 * events' order, which is what keeps a case's deliveries in order at send time.
 */
export async function fanOutWebhookDeliveries(
  manager: EntityManager,
  scope: TenantScope,
  boss: PgBoss | undefined,
  events: readonly ResourceEvent[],
  /** The events' own INSERT, sent in the same statement (one round trip for both). */
  eventsInsert?: SqlStatement,
): Promise<void> {
  if (events.length === 0) {
    if (eventsInsert !== undefined) await writeSql(manager, eventsInsert);
    return;
  }
  const fanOut: SqlStatement = {
    sql: `INSERT INTO webhook_deliveries (organization_id, environment, id, endpoint_id, event_id, event_type,
       authorization_id, status, attempt_count, next_attempt_at, created_at, updated_at, attempt_token)
     SELECT w.organization_id, w.environment, 'whdel_' || replace(gen_random_uuid()::text, '-', ''), w.id,
       ev.id, ev.type, ev.authorization_id, 'pending', 0, ev.created_at, ev.created_at, ev.created_at,
       ${NEW_ATTEMPT_TOKEN_SQL}
     FROM unnest($3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[]) WITH ORDINALITY
       AS ev(id, type, authorization_id, created_at, target, position)
     JOIN webhook_endpoints w ON w.organization_id = $1 AND w.environment = $2 AND NOT w.disabled
       AND CASE WHEN ev.target IS NOT NULL THEN w.id = ev.target
         ELSE (w.enabled_events ? '*' OR w.enabled_events ? ev.type) END
     ORDER BY ev.position, w.created_at, w.id
     RETURNING id, attempt_token`,
    parameters: [
      ...tenantParameters(scope),
      events.map((event) => event.id),
      events.map((event) => event.type),
      events.map((event) => event.authorizationId),
      events.map((event) => event.createdAt),
      events.map(testTarget),
    ],
  };
  // The jobs follow once the rows are written (held with the command's other writes when its transaction
  // holds them), still on the same connection and in the same transaction.
  const tenant = `${scope.organizationId}/${scope.environment}`;
  await writeSql(
    manager,
    eventsInsert === undefined ? [fanOut] : [eventsInsert, fanOut],
    async (result) => {
      const rows = result.rows as Array<{ id: string; attempt_token: string }>;
      if (rows.length === 0) return;
      rememberTenant(tenant);
      if (boss === undefined) {
        throw new Error('this unit of work has no job queue (jobBoss) configured for webhook deliveries');
      }
      for (const row of rows) {
        const data: WebhookDeliveryJobData = { ...scope, deliveryId: row.id, token: row.attempt_token };
        const id = await boss.send(WEBHOOK_DELIVERY_QUEUE, data, { db: transactionDatabase(manager) });
        if (id === null) throw new Error(`webhook delivery ${row.id} was not enqueued`);
      }
    },
    // With no delivery the jobs' step does nothing, so the command may commit alone (decision 0055).
    tenantsWithEndpoints.has(tenant) ? {} : { expect: 'no-rows' },
  );
}

/**
 * Tenants this process has seen fan a delivery out: a hint, never a rule (decision 0055). A tenant's fan-out is
 * held as one that matches no endpoint, so its command can commit as one statement; when it does match one, that
 * commit is refused and the command runs again in a transaction, which sends the jobs. A tenant remembered here
 * takes the transaction at once. Bounded; a tenant forgotten, or remembered after its endpoints are gone, costs
 * a little time and nothing else.
 */
const tenantsWithEndpoints = new Set<string>();
const REMEMBERED_TENANTS = 10_000;

function rememberTenant(tenant: string): void {
  if (tenantsWithEndpoints.size >= REMEMBERED_TENANTS) tenantsWithEndpoints.clear();
  tenantsWithEndpoints.add(tenant);
}
