import type { Clock, HostResolver, WebhookSecretVault } from '@prior-auth/domain';
import {
  PostgresWebhookDeliveryStore,
  WEBHOOK_DELIVERY_QUEUE,
  type WebhookDeliveryJobData,
} from '@prior-auth/persistence-postgres';
import { RandomIdGenerator } from '@prior-auth/platform';
import type { PgBoss } from 'pg-boss';
import type { DataSource } from 'typeorm';
import type { QueueConsumer } from '../worker';
import { deliverWebhook, type WebhookRetrySettings } from './webhook-delivery.handler';
import { WebhookSender } from './webhook-sender';

export interface WebhookDeliveryConsumerOptions {
  dataSource: DataSource;
  boss: PgBoss;
  clock: Clock;
  vault: WebhookSecretVault;
  resolver: HostResolver;
  retry?: Partial<WebhookRetrySettings>;
}

const isJobData = (data: unknown): data is WebhookDeliveryJobData => {
  const d = data as Partial<WebhookDeliveryJobData> | null;
  return (
    typeof d?.organizationId === 'string' &&
    (d.environment === 'sandbox' || d.environment === 'production') &&
    typeof d.deliveryId === 'string' &&
    (d.token === undefined || typeof d.token === 'string')
  );
};

/** The worker's consumer of the webhook delivery queue (docs/decisions/0031-events-and-webhooks.md). */
export function webhookDeliveryConsumer(options: WebhookDeliveryConsumerOptions): QueueConsumer {
  const store = new PostgresWebhookDeliveryStore(options.dataSource, options.boss);
  const ids = new RandomIdGenerator();
  const sender = new WebhookSender(options.resolver);
  return {
    queue: WEBHOOK_DELIVERY_QUEUE,
    run: async (data) => {
      if (!isJobData(data)) return 'malformed_job';
      return deliverWebhook(
        {
          store,
          sender,
          vault: options.vault,
          clock: options.clock,
          ids,
          ...(options.retry === undefined ? {} : { retry: options.retry }),
        },
        data,
      );
    },
  };
}
