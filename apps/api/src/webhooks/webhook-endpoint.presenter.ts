import type { WebhookDeliveryView, WebhookEndpoint } from '@prior-auth/domain';

/*
 * The webhook endpoint as clients see it (docs/decisions/0031-events-and-webhooks.md). Secrets are never
 * presented, except the new one in the answer to create and to rotate-secret (shown once).
 */
export function presentWebhookEndpoint(endpoint: WebhookEndpoint) {
  const s = endpoint.toState();
  return {
    id: s.id,
    url: s.url,
    description: s.description,
    enabledEvents: [...s.enabledEvents],
    disabled: s.disabled,
    apiVersion: s.apiVersion,
    version: s.version,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

export const presentWebhookEndpointWithSecret = (endpoint: WebhookEndpoint, secret: string) => ({
  ...presentWebhookEndpoint(endpoint),
  secret,
});

export const webhookEndpointEtag = (endpoint: WebhookEndpoint): string => `"${endpoint.version}"`;

const isoOrNull = (date: Date | null): string | null => (date === null ? null : date.toISOString());

/** A delivery with its attempts (oldest first); the response excerpt is what the receiver answered, ≤ 4 KiB. */
export const presentWebhookDelivery = (delivery: WebhookDeliveryView) => ({
  id: delivery.id,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  authorizationId: delivery.authorizationId,
  status: delivery.status,
  nextAttemptAt: isoOrNull(delivery.nextAttemptAt),
  createdAt: delivery.createdAt.toISOString(),
  updatedAt: delivery.updatedAt.toISOString(),
  attempts: delivery.attempts.map((attempt) => ({
    attemptNumber: attempt.attemptNumber,
    attemptedAt: attempt.attemptedAt.toISOString(),
    statusCode: attempt.statusCode,
    durationMs: attempt.durationMs,
    responseExcerpt: attempt.responseExcerpt,
    error: attempt.error,
  })),
});
