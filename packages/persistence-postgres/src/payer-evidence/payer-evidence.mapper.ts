import type { PayerEvidenceRecord, PortalEvidence, TenantScope } from '@prior-auth/domain';
import type { PayerEvidenceRow } from './payer-evidence.entity';

export const toPayerEvidenceRecord = (row: PayerEvidenceRow): PayerEvidenceRecord => ({
  id: row.id,
  authorizationId: row.authorization_id,
  kind: row.kind as PortalEvidence['kind'],
  step: row.step,
  capturedAt: row.captured_at,
  fileId: row.file_id,
  blobKey: row.blob_key,
  recordedAt: row.recorded_at,
});

export const toPayerEvidenceRow = (scope: TenantScope, record: PayerEvidenceRecord): PayerEvidenceRow => ({
  organization_id: scope.organizationId,
  environment: scope.environment,
  id: record.id,
  authorization_id: record.authorizationId,
  kind: record.kind,
  step: record.step,
  captured_at: record.capturedAt,
  file_id: record.fileId,
  blob_key: record.blobKey,
  recorded_at: record.recordedAt,
});
