import type { Environment } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/** A row of `manual_handoffs` (migration 1763741000000); the reconciliation is flattened into two columns. */
export interface ManualHandoffRow {
  organization_id: string;
  environment: Environment;
  id: string;
  authorization_id: string;
  interaction_action_id: string;
  version: number;
  state: string;
  result: string | null;
  runtime_session_id: string | null;
  reported_outcome: string | null;
  observed_reference_number: string | null;
  operator_notes: string | null;
  unable_reason: string | null;
  revoke_reason: string | null;
  revoke_notes: string | null;
  reconciliation_id: string | null;
  reconciliation_state: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  activated_at: Date | null;
  closed_at: Date | null;
}

const text = { type: 'text' } as const;
const optionalText = { type: 'text', nullable: true } as const;

export const ManualHandoffEntity = new EntitySchema<ManualHandoffRow>({
  name: 'manual_handoff',
  tableName: 'manual_handoffs',
  columns: {
    organization_id: { type: 'text', primary: true },
    environment: { type: 'text', primary: true },
    id: { type: 'text', primary: true },
    authorization_id: text,
    interaction_action_id: text,
    version: { type: 'integer' },
    state: text,
    result: optionalText,
    runtime_session_id: optionalText,
    reported_outcome: optionalText,
    observed_reference_number: optionalText,
    operator_notes: optionalText,
    unable_reason: optionalText,
    revoke_reason: optionalText,
    revoke_notes: optionalText,
    reconciliation_id: optionalText,
    reconciliation_state: optionalText,
    expires_at: { type: 'timestamptz' },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    activated_at: { type: 'timestamptz', nullable: true },
    closed_at: { type: 'timestamptz', nullable: true },
  },
});
