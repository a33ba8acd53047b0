import type { AggregateType, Environment } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/** A row of `outbox_events`: a domain event committed with the change that produced it, awaiting delivery. */
export interface OutboxEventRow {
  /** Commit-order position (identity); only read, never written. */
  sequence: string;
  id: string;
  organization_id: string;
  environment: Environment;
  aggregate_type: AggregateType;
  aggregate_id: string;
  type: string;
  occurred_at: Date;
  payload: Record<string, unknown>;
  recorded_at: Date;
  published_at: Date | null;
}

export const OutboxEventEntity = new EntitySchema<OutboxEventRow>({
  name: 'outbox_event',
  tableName: 'outbox_events',
  columns: {
    sequence: { type: 'bigint', primary: true, generated: 'increment' },
    id: { type: 'text' },
    organization_id: { type: 'text' },
    environment: { type: 'text' },
    aggregate_type: { type: 'text' },
    aggregate_id: { type: 'text' },
    type: { type: 'text' },
    occurred_at: { type: 'timestamptz' },
    payload: { type: 'jsonb' },
    recorded_at: { type: 'timestamptz', insert: false },
    published_at: { type: 'timestamptz', nullable: true, insert: false },
  },
});
