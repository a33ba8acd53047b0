import type { Environment } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/** A row of `payer_evidence` (migration 1763750000000): internal, never presented (decision 0020). */
export interface PayerEvidenceRow {
  organization_id: string;
  environment: Environment;
  id: string;
  authorization_id: string;
  kind: string;
  step: string;
  captured_at: Date;
  file_id: string;
  blob_key: string;
  recorded_at: Date;
}

const text = { type: 'text' } as const;

export const PayerEvidenceEntity = new EntitySchema<PayerEvidenceRow>({
  name: 'payer_evidence',
  tableName: 'payer_evidence',
  columns: {
    organization_id: { ...text, primary: true },
    environment: { ...text, primary: true },
    id: { ...text, primary: true },
    authorization_id: text,
    kind: text,
    step: text,
    captured_at: { type: 'timestamptz' },
    file_id: text,
    blob_key: text,
    recorded_at: { type: 'timestamptz' },
  },
});
