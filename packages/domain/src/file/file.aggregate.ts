import { DomainError } from '../shared/domain-error';
import { type Environment } from '../shared/scope';
import { VersionedAggregate } from '../shared/versioned-aggregate';
import {
  type FilePurpose,
  isAllowedFileContentType,
  isClientFilePurpose,
  isFilePurpose,
  isPayerEvidenceContentType,
  MAX_FILE_SIZE_BYTES,
  type StoredFileContentType,
} from './file-content-type';

export const FILE_STATUSES = ['pending_upload', 'ready'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

/** How long the signed upload target stays valid after the file record is created. */
export const FILE_UPLOAD_WINDOW_MS = 15 * 60 * 1000;

export interface FileState {
  id: string;
  organizationId: string;
  environment: Environment;
  status: FileStatus;
  fileName: string;
  /** Declared by the client at creation; completion checks the stored bytes against it. */
  contentType: StoredFileContentType;
  purpose: FilePurpose;
  /** Declared by the client at creation; completion checks the stored size against it. */
  sizeBytes: number;
  checksumSha256: string | null;
  /** Opaque blob-store key; derived from the tenant and the id so keys never collide across tenants. */
  storageKey: string;
  createdAt: Date;
  completedAt: Date | null;
  uploadExpiresAt: Date;
  version: number;
}

export interface CreateFileInput {
  organizationId: string;
  environment: Environment;
  fileName: string;
  contentType: string;
  purpose: string;
  sizeBytes: number;
}

/** Bytes the service captured and stored itself (payer evidence, decision 0020). */
export interface ServiceFileInput {
  organizationId: string;
  environment: Environment;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  checksumSha256: string;
}

export interface FileContext {
  now: Date;
  newId(prefix: 'file'): string;
}

/** What the blob store observed about the uploaded object. */
export interface StoredUpload {
  /** null when nothing was uploaded. */
  storedSizeBytes: number | null;
  /** The type judged from the bytes (`sniffContentType`), null when unrecognised. */
  sniffedContentType: string | null;
  /** null when not computed (the upload is rejected anyway, so hashing every byte would be wasted). */
  checksumSha256: string | null;
}

export type FileEvent =
  | { type: 'file.created'; fileId: string; occurredAt: Date }
  | { type: 'file.ready'; fileId: string; occurredAt: Date };

export class File extends VersionedAggregate<FileState, FileEvent> {
  /**
   * The API validates the request first and reports every issue; these guards keep the aggregate valid
   * whoever calls it. All of them are content problems, hence `file_content_mismatch` (a 422).
   */
  static create(input: CreateFileInput, ctx: FileContext): File {
    if (!isFilePurpose(input.purpose)) {
      throw new DomainError('file_content_mismatch', 'The file purpose is not supported.', {
        purpose: input.purpose,
      });
    }
    if (!isClientFilePurpose(input.purpose)) {
      throw new DomainError(
        'file_content_mismatch',
        `Files of purpose ${input.purpose} are created by the service only.`,
        { purpose: input.purpose },
      );
    }
    if (!isAllowedFileContentType(input.contentType)) {
      throw new DomainError('file_content_mismatch', 'The content type is not allowed.', {
        contentType: input.contentType,
      });
    }
    if (!Number.isInteger(input.sizeBytes) || input.sizeBytes <= 0 || input.sizeBytes > MAX_FILE_SIZE_BYTES) {
      throw new DomainError('file_content_mismatch', 'The file size is out of range.', {
        sizeBytes: input.sizeBytes,
        maxSizeBytes: MAX_FILE_SIZE_BYTES,
      });
    }
    if (input.fileName.trim() === '') {
      throw new DomainError('file_content_mismatch', 'The file name is empty.');
    }
    const id = ctx.newId('file');
    const file = new File(
      {
        id,
        organizationId: input.organizationId,
        environment: input.environment,
        status: 'pending_upload',
        fileName: input.fileName,
        contentType: input.contentType,
        purpose: input.purpose,
        sizeBytes: input.sizeBytes,
        checksumSha256: null,
        storageKey: fileStorageKey(input.environment, input.organizationId, id),
        createdAt: new Date(ctx.now),
        completedAt: null,
        uploadExpiresAt: new Date(ctx.now.getTime() + FILE_UPLOAD_WINDOW_MS),
        version: 1,
      },
      null,
    );
    file.events.push({ type: 'file.created', fileId: id, occurredAt: new Date(ctx.now) });
    return file;
  }

  /**
   * A `payer_evidence` file, ready at once: its bytes were written by the service, which computed the
   * checksum, so there is no upload to verify. The bytes must already be stored under
   * `fileBlobKey(storageKeyOf(...), { checksumSha256 })` when the file is saved (blobs first, decision 0020).
   */
  static recordPayerEvidence(input: ServiceFileInput & { id: string }, now: Date): File {
    return File.serviceMade(input, 'payer_evidence', now);
  }

  /**
   * A `submission_preview` file (decision 0032): a PDF the service rendered and stored, ready at once like
   * payer evidence.
   */
  static recordSubmissionPreview(input: ServiceFileInput & { id: string }, now: Date): File {
    if (input.contentType !== 'application/pdf') {
      throw new Error(`a submission preview cannot be ${JSON.stringify(input.contentType)}`);
    }
    return File.serviceMade(input, 'submission_preview', now);
  }

  private static serviceMade(
    input: ServiceFileInput & { id: string },
    purpose: 'payer_evidence' | 'submission_preview',
    now: Date,
  ): File {
    if (!isPayerEvidenceContentType(input.contentType)) {
      throw new Error(`a ${purpose} file cannot be ${JSON.stringify(input.contentType)}`);
    }
    if (!Number.isInteger(input.sizeBytes) || input.sizeBytes <= 0) {
      throw new Error(`a ${purpose} file cannot be ${input.sizeBytes} bytes long`);
    }
    if (!/^[0-9a-f]{64}$/.test(input.checksumSha256)) {
      throw new Error(`a ${purpose} file needs its lower-case hex SHA-256`);
    }
    const file = new File(
      {
        id: input.id,
        organizationId: input.organizationId,
        environment: input.environment,
        status: 'ready',
        fileName: input.fileName,
        contentType: input.contentType,
        purpose,
        sizeBytes: input.sizeBytes,
        checksumSha256: input.checksumSha256,
        storageKey: fileStorageKey(input.environment, input.organizationId, input.id),
        createdAt: new Date(now),
        completedAt: new Date(now),
        // Never an upload target: the window is closed from the start.
        uploadExpiresAt: new Date(now),
        version: 1,
      },
      null,
    );
    file.events.push(
      { type: 'file.created', fileId: input.id, occurredAt: new Date(now) },
      { type: 'file.ready', fileId: input.id, occurredAt: new Date(now) },
    );
    return file;
  }

  static rehydrate(state: FileState): File {
    return new File(copyState(state), state.version);
  }

  get status(): FileStatus {
    return this.state.status;
  }
  get fileName(): string {
    return this.state.fileName;
  }
  get contentType(): StoredFileContentType {
    return this.state.contentType;
  }
  get purpose(): FilePurpose {
    return this.state.purpose;
  }
  get sizeBytes(): number {
    return this.state.sizeBytes;
  }
  get storageKey(): string {
    return this.state.storageKey;
  }
  get uploadExpiresAt(): Date {
    return new Date(this.state.uploadExpiresAt);
  }

  /**
   * Accepts the upload once the stored object matches what was declared. The upload window only limits the
   * signed URL: bytes that arrived in time may be completed later.
   */
  complete(upload: StoredUpload, now: Date): void {
    if (this.state.status === 'ready') {
      throw new DomainError('file_already_completed', 'The file upload was already completed.', {
        fileId: this.state.id,
      });
    }
    if (upload.storedSizeBytes !== this.state.sizeBytes) {
      throw new DomainError('file_upload_incomplete', 'The uploaded bytes do not match the declared size.', {
        fileId: this.state.id,
        declaredSizeBytes: this.state.sizeBytes,
        storedSizeBytes: upload.storedSizeBytes,
      });
    }
    if (
      upload.sniffedContentType === null ||
      !isAllowedFileContentType(upload.sniffedContentType) ||
      upload.sniffedContentType !== this.state.contentType
    ) {
      throw new DomainError(
        'file_content_mismatch',
        'The uploaded bytes do not match the declared content type.',
        {
          fileId: this.state.id,
          declaredContentType: this.state.contentType,
          detectedContentType: upload.sniffedContentType,
        },
      );
    }
    if (upload.checksumSha256 === null) {
      throw new Error('A matching upload must come with its checksum.');
    }
    this.state.status = 'ready';
    this.state.checksumSha256 = upload.checksumSha256;
    this.state.completedAt = new Date(now);
    this.state.version += 1;
    this.events.push({ type: 'file.ready', fileId: this.state.id, occurredAt: new Date(now) });
  }

  /** Only completed files may be linked to an authorization (decision 0027, spec "Attach a file"). */
  assertAttachable(): void {
    if (this.state.purpose !== 'authorization_attachment') {
      throw new DomainError(
        'file_content_mismatch',
        'Only files of purpose authorization_attachment can be attached.',
        {
          fileId: this.state.id,
          purpose: this.state.purpose,
        },
      );
    }
    if (this.state.status !== 'ready') {
      throw new DomainError('file_not_ready', 'The file upload has not been completed.', {
        fileId: this.state.id,
        status: this.state.status,
      });
    }
  }

  toState(): FileState {
    return copyState(this.state);
  }
}

/** The staging key of a file (decision 0006); its content key is `fileBlobKey` of it. */
export const fileStorageKey = (environment: Environment, organizationId: string, fileId: string): string =>
  `${environment}/${organizationId}/files/${fileId}`;

const copyState = (state: FileState): FileState => ({
  ...state,
  createdAt: new Date(state.createdAt),
  completedAt: state.completedAt === null ? null : new Date(state.completedAt),
  uploadExpiresAt: new Date(state.uploadExpiresAt),
});
