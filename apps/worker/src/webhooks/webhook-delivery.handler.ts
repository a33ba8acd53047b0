import {
  webhookEndpointEvent,
  type Clock,
  type IdGenerator,
  type TenantScope,
  type WebhookSecretVault,
} from '@prior-auth/domain';
import { LEGACY_API_VERSION } from '@prior-auth/platform';
import type {
  PostgresWebhookDeliveryStore,
  WebhookAttemptOutcome,
  WebhookDeliveryJobData,
} from '@prior-auth/persistence-postgres';
import { presentEvent } from '@prior-auth/presentation';
import type { WebhookSender } from './webhook-sender';

/*
 * Sends one webhook delivery (docs/decisions/0031-events-and-webhooks.md). At least once: the attempt is
 * recorded after the send, so a worker killed in between sends again. A failed send is retried with backoff
 * until the delivery is RETRY_WINDOW_MS old, then given up; an endpoint that has been failing for
 * DISABLE_AFTER_MS is disabled at its next given-up delivery. In order per case: a delivery waits (is
 * rescheduled without an attempt) while an earlier delivery of the same case to the same endpoint is pending.
 * One send at a time (docs/decisions/0037-webhook-versions-attempts-and-request-schemas.md): a job sends only while it
 * holds the delivery's attempt token, and every job after it is sent by the store with a new one. The body is
 * rendered in the endpoint's API version.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export interface WebhookRetrySettings {
  /** Delay before retry n (1-based): doubles from `firstDelayMs` up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** A delivery is retried until it is this old (spec: at least 3 days). */
  retryWindowMs: number;
  /** An endpoint failing this long is disabled (spec: 5 days). */
  disableAfterMs: number;
  /** How long a delivery waits before looking again at an earlier pending delivery of its case. */
  orderWaitMs: number;
}

export const DEFAULT_WEBHOOK_RETRY: WebhookRetrySettings = {
  firstDelayMs: 30_000,
  maxDelayMs: 60 * MINUTE,
  retryWindowMs: 3 * DAY,
  disableAfterMs: 5 * DAY,
  orderWaitMs: 1_000,
};

export const retryDelayMs = (settings: WebhookRetrySettings, attempt: number): number =>
  Math.min(settings.maxDelayMs, settings.firstDelayMs * 2 ** Math.max(0, attempt - 1));

export interface WebhookDeliveryDependencies {
  store: Pick<PostgresWebhookDeliveryStore, 'loadPending' | 'claim' | 'defer' | 'recordAttempt'>;
  sender: Pick<WebhookSender, 'send'>;
  vault: Pick<WebhookSecretVault, 'open'>;
  clock: Clock;
  ids: IdGenerator;
  retry?: Partial<WebhookRetrySettings>;
}

export type WebhookDeliveryOutcome = 'not_pending' | 'waiting' | 'succeeded' | 'retry_scheduled' | 'failed';

export async function deliverWebhook(
  deps: WebhookDeliveryDependencies,
  data: WebhookDeliveryJobData,
): Promise<WebhookDeliveryOutcome> {
  const settings = { ...DEFAULT_WEBHOOK_RETRY, ...deps.retry };
  const scope: TenantScope = { organizationId: data.organizationId, environment: data.environment };
  const delivery = await deps.store.loadPending(scope, data);
  if (delivery === null) return 'not_pending';
  const now = deps.clock.now();
  if (delivery.waitsForEarlier) {
    const deferred = await deps.store.defer(scope, data, new Date(now.getTime() + settings.orderWaitMs));
    return deferred ? 'waiting' : 'not_pending';
  }
  if (!(await deps.store.claim(scope, data, now))) return 'not_pending';
  const version = delivery.endpoint.apiVersion === LEGACY_API_VERSION ? 'legacy' : 'current';
  const body = JSON.stringify(presentEvent(delivery.event, version));
  const secrets = delivery.endpoint.signingSecrets(now).map((sealed) => deps.vault.open(sealed));
  const result = await deps.sender.send({
    url: delivery.endpoint.url,
    environment: scope.environment,
    messageId: delivery.event.id,
    body,
    secrets,
    now,
  });
  const attemptedAt = deps.clock.now();
  let outcome: WebhookAttemptOutcome;
  if (result.ok) {
    outcome = { kind: 'succeeded' };
  } else {
    const retryAt = new Date(attemptedAt.getTime() + retryDelayMs(settings, delivery.attemptCount + 1));
    if (retryAt.getTime() - delivery.createdAt.getTime() <= settings.retryWindowMs) {
      // The store enqueues the follow-up with the attempt; a crash before that re-runs this job, which
      // still holds the token and sends again: twice, never zero times.
      outcome = { kind: 'retry', retryAt };
    } else {
      const failingSince = delivery.endpointFailingSince ?? attemptedAt;
      const disableEndpoint = attemptedAt.getTime() - failingSince.getTime() >= settings.disableAfterMs;
      outcome = { kind: 'failed', disableEndpoint };
      if (disableEndpoint) {
        // The endpoint as the store leaves it (disabled, next version), for the event telling so.
        const endpoint = delivery.endpoint.toState();
        outcome.disabledEvent = webhookEndpointEvent(
          deps.ids.newId('evt'),
          { ...endpoint, disabled: true, version: endpoint.version + 1, updatedAt: attemptedAt },
          'webhook_endpoint.disabled',
          attemptedAt,
        );
      }
    }
  }
  const recorded = await deps.store.recordAttempt(
    scope,
    data,
    {
      attemptedAt,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      responseExcerpt: result.responseExcerpt,
      error: result.error,
    },
    outcome,
  );
  if (!recorded) return 'not_pending';
  return outcome.kind === 'retry' ? 'retry_scheduled' : outcome.kind;
}
