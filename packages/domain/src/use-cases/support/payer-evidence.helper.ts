import { File, fileStorageKey } from '../../file/file.aggregate';
import { fileBlobKey } from '../../file/file-storage-keys';
import { type DomainPorts } from '../../ports';
import { type PayerEvidenceRecord } from '../../ports/payer-evidence.repository.port';
import { type PortalEvidence } from '../../ports/payer-portal.port';
import { type TransactionalPorts } from '../../ports/unit-of-work.port';
import { type TenantScope } from '../../shared/scope';
import { saveFile } from './aggregate-persistence.helper';

/** Evidence whose bytes are stored, waiting to be recorded in the transaction that uses it. */
export interface StoredEvidence {
  files: File[];
  records: PayerEvidenceRecord[];
  /** The confirmation page as an image, else as a PDF, else its HTML; null when none was captured. */
  confirmationFileId: string | null;
  letterFileId: string | null;
}

export const NO_EVIDENCE: StoredEvidence = {
  files: [],
  records: [],
  confirmationFileId: null,
  letterFileId: null,
};

const EXTENSIONS: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/tiff': 'tiff',
  'text/html': 'html',
};

/** Which capture of the confirmation page a receipt links: what a person sees first (decision 0020). */
const CONFIRMATION_PREFERENCE: ReadonlyArray<PortalEvidence['kind']> = [
  'confirmation_image',
  'confirmation_pdf',
  'confirmation_html',
];

export type PayerEvidenceDeps = Pick<DomainPorts, 'blobStore' | 'clock' | 'ids'>;

/**
 * Stores what a portal run captured as `payer_evidence` files of the case's tenant (decision 0020), in two
 * steps: `storeBlobs` writes the bytes outside any transaction, then `record` saves the files and evidence
 * rows inside the transaction that records the receipt or decision linking them. Blobs are not
 * transactional, so a crash in between leaves an orphan blob, never a row naming missing bytes.
 */
export class PayerEvidence {
  constructor(private readonly deps: PayerEvidenceDeps) {}

  async storeBlobs(
    scope: TenantScope,
    authorizationId: string,
    evidence: readonly PortalEvidence[] | undefined,
  ): Promise<StoredEvidence> {
    if (evidence === undefined || evidence.length === 0) return NO_EVIDENCE;
    const files: File[] = [];
    const records: PayerEvidenceRecord[] = [];
    for (const item of evidence) {
      const fileId = this.deps.ids.newId('file');
      const stagingKey = fileStorageKey(scope.environment, scope.organizationId, fileId);
      const stored = await this.deps.blobStore.put(stagingKey, item.bytes, { contentType: item.contentType });
      // Readers get the content key, named by the checksum, as for uploaded files (decision 0006).
      const blobKey = fileBlobKey(stagingKey, { checksumSha256: stored.checksumSha256 });
      await this.deps.blobStore.promote(stagingKey, blobKey);
      await this.deps.blobStore.delete(stagingKey);
      const now = this.deps.clock.now();
      files.push(
        File.recordPayerEvidence(
          {
            id: fileId,
            ...scope,
            fileName: `${item.step}-${item.kind}.${EXTENSIONS[item.contentType] ?? 'bin'}`,
            contentType: item.contentType,
            sizeBytes: stored.sizeBytes,
            checksumSha256: stored.checksumSha256,
          },
          now,
        ),
      );
      records.push({
        id: this.deps.ids.newId('evd'),
        authorizationId,
        kind: item.kind,
        step: item.step,
        capturedAt: new Date(item.capturedAt),
        fileId,
        blobKey,
        recordedAt: now,
      });
    }
    const fileOf = (kind: PortalEvidence['kind']): string | null =>
      records.find((record) => record.kind === kind)?.fileId ?? null;
    const confirmation = CONFIRMATION_PREFERENCE.map(fileOf).find((id) => id !== null) ?? null;
    return { files, records, confirmationFileId: confirmation, letterFileId: fileOf('decision_letter') };
  }

  /** Inside the transaction that links the evidence: its files and rows commit with the link or not at all. */
  async record(tx: TransactionalPorts, stored: StoredEvidence): Promise<void> {
    if (stored.records.length === 0) return;
    for (const file of stored.files) await saveFile(tx, this.deps.ids, file);
    await tx.payerEvidence.add(stored.records);
  }
}
