import type { WebhookEndpoint } from '../webhooks/webhook-endpoint.aggregate';
import type { Page } from './authorization.repository.port';

/** Webhook endpoints of ONE tenant (docs/decisions/0031-events-and-webhooks.md). */
export interface WebhookEndpointRepository {
  findById(id: string): Promise<WebhookEndpoint | null>;
  /** Newest first; `limit` 1–100. */
  list(query: { limit: number; cursor?: string }): Promise<Page<WebhookEndpoint>>;
  /** Inserts or updates with an optimistic version check (VersionConflictError). */
  save(endpoint: WebhookEndpoint): Promise<void>;
  /** False when there was no such endpoint. */
  delete(id: string): Promise<boolean>;
}
