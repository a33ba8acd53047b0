import type { Environment } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/** A row of `idempotency_records` (decision 0023): one per (organization, environment, key). */
export interface IdempotencyRecordRow {
  organization_id: string;
  environment: Environment;
  key: string;
  fingerprint: string;
  /** `in_flight` rows are claims written by earlier versions of the service (decision 0053); this one writes answers. */
  state: 'in_flight' | 'completed';
  /** An earlier version's claim: its token and when it was taken. */
  lock_token: string | null;
  locked_at: Date | null;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  /** Text, not JSONB: replays are byte for byte. */
  response_body: string | null;
  created_at: Date;
  completed_at: Date | null;
  expires_at: Date;
}

export const IdempotencyRecordEntity = new EntitySchema<IdempotencyRecordRow>({
  name: 'idempotency_record',
  tableName: 'idempotency_records',
  columns: {
    organization_id: { type: 'text', primary: true },
    environment: { type: 'text', primary: true },
    key: { type: 'text', primary: true },
    fingerprint: { type: 'text' },
    state: { type: 'text' },
    lock_token: { type: 'uuid', nullable: true },
    locked_at: { type: 'timestamptz', nullable: true },
    response_status: { type: 'integer', nullable: true },
    response_headers: { type: 'jsonb', nullable: true },
    response_body: { type: 'text', nullable: true },
    created_at: { type: 'timestamptz' },
    completed_at: { type: 'timestamptz', nullable: true },
    expires_at: { type: 'timestamptz' },
  },
});
