import type { Page } from '../ports/authorization.repository.port';
import type { TenantScope } from '../shared/scope';

/** One attempt to send a delivery (docs/decisions/0031-events-and-webhooks.md). */
export interface WebhookDeliveryAttemptView {
  attemptNumber: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

/**
 * A send begun longer ago than this is taken as dead (its worker stopped) when a manual retry asks whether
 * one is in flight; well above the 10-second send timeout (docs/decisions/0037-webhook-versions-attempts-and-request-schemas.md).
 */
export const WEBHOOK_SEND_IN_FLIGHT_MS = 60_000;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** A delivery of one event to one endpoint, with its attempts, oldest first. */
export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  authorizationId: string | null;
  status: WebhookDeliveryStatus;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  attempts: WebhookDeliveryAttemptView[];
}

/** The deliveries of a tenant's endpoints: listed newest first, and sent again on request. */
export interface WebhookDeliveries {
  list(
    scope: TenantScope,
    endpointId: string,
    query: { limit: number; cursor?: string },
  ): Promise<Page<WebhookDeliveryView>>;
  /**
   * Makes the delivery pending and sends it now, unless a send of it is in flight (that send answers the
   * retry); at most one job may send a delivery at a time. Null when the endpoint has no such delivery.
   */
  retry(
    scope: TenantScope,
    endpointId: string,
    deliveryId: string,
    now: Date,
  ): Promise<WebhookDeliveryView | null>;
}
