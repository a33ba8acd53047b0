import { WebhookEndpoint, type WebhookEndpointState } from '@prior-auth/domain';
import type { WebhookEndpointRow } from './webhook-endpoint.entity';

export const toWebhookEndpointRow = (s: WebhookEndpointState): WebhookEndpointRow => ({
  organization_id: s.organizationId,
  environment: s.environment,
  id: s.id,
  url: s.url,
  description: s.description,
  enabled_events: [...s.enabledEvents],
  disabled: s.disabled,
  api_version: s.apiVersion,
  secrets: s.secrets.map((secret) => ({
    sealed: secret.sealed,
    createdAt: secret.createdAt.toISOString(),
    expiresAt: secret.expiresAt === null ? null : secret.expiresAt.toISOString(),
  })),
  created_at: s.createdAt,
  updated_at: s.updatedAt,
  version: s.version,
});

export const toWebhookEndpoint = (row: WebhookEndpointRow): WebhookEndpoint =>
  WebhookEndpoint.rehydrate({
    id: row.id,
    organizationId: row.organization_id,
    environment: row.environment,
    url: row.url,
    description: row.description,
    enabledEvents: [...row.enabled_events],
    disabled: row.disabled,
    apiVersion: row.api_version,
    secrets: row.secrets.map((secret) => ({
      sealed: secret.sealed,
      createdAt: new Date(secret.createdAt),
      expiresAt: secret.expiresAt === null ? null : new Date(secret.expiresAt),
    })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
  });
