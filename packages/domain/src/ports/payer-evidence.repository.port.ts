import { type PortalEvidence } from './payer-portal.port';

/**
 * One piece of evidence a payer-portal run captured (decision 0020): internal, never presented; the bytes
 * are the `payer_evidence` file it names.
 */
export interface PayerEvidenceRecord {
  id: string;
  authorizationId: string;
  kind: PortalEvidence['kind'];
  /** The portal step it was captured after, e.g. `review`, `confirmation`, `decision`. */
  step: string;
  capturedAt: Date;
  fileId: string;
  /** Where the bytes are (the file's content key), so the evidence is found without the file row. */
  blobKey: string;
  recordedAt: Date;
}

/** Evidence rows of one tenant; bound to a TenantScope by the unit of work. Rows are only ever added. */
export interface PayerEvidenceRepository {
  add(records: readonly PayerEvidenceRecord[]): Promise<void>;
  /** Oldest capture first. */
  listByAuthorization(authorizationId: string): Promise<PayerEvidenceRecord[]>;
}
