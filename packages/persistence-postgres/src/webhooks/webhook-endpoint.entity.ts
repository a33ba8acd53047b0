import type { Environment } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

export interface StoredWebhookSecret {
  sealed: string;
  createdAt: string;
  expiresAt: string | null;
}

/** A row of `webhook_endpoints` (docs/decisions/0031-events-and-webhooks.md). */
export interface WebhookEndpointRow {
  organization_id: string;
  environment: Environment;
  id: string;
  url: string;
  description: string | null;
  enabled_events: string[];
  disabled: boolean;
  api_version: string;
  secrets: StoredWebhookSecret[];
  created_at: Date;
  updated_at: Date;
  version: number;
}

export const WebhookEndpointEntity = new EntitySchema<WebhookEndpointRow>({
  name: 'webhook_endpoint',
  tableName: 'webhook_endpoints',
  columns: {
    organization_id: { type: 'text', primary: true },
    environment: { type: 'text', primary: true },
    id: { type: 'text', primary: true },
    url: { type: 'text' },
    description: { type: 'text', nullable: true },
    enabled_events: { type: 'jsonb' },
    disabled: { type: 'boolean' },
    api_version: { type: 'text' },
    secrets: { type: 'jsonb' },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    version: { type: 'integer' },
  },
});
