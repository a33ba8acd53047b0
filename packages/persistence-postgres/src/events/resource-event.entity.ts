import type { Environment } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/** A row of `events` (docs/decisions/0031-events-and-webhooks.md). */
export interface ResourceEventRow {
  /** Commit-order position (identity); only read, never written. */
  sequence: string;
  id: string;
  organization_id: string;
  environment: Environment;
  type: string;
  authorization_id: string | null;
  created_at: Date;
  /** The resource snapshot, dates tagged (see resource-event.mapper). */
  snapshot: unknown;
}

export const ResourceEventEntity = new EntitySchema<ResourceEventRow>({
  name: 'resource_event',
  tableName: 'events',
  columns: {
    sequence: { type: 'bigint', primary: true, generated: 'increment' },
    id: { type: 'text' },
    organization_id: { type: 'text' },
    environment: { type: 'text' },
    type: { type: 'text' },
    authorization_id: { type: 'text', nullable: true },
    created_at: { type: 'timestamptz' },
    snapshot: { type: 'jsonb' },
  },
});
