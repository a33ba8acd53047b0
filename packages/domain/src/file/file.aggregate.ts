import { DomainError } from '../shared/domain-error';
import { type Environment } from '../shared/scope';
import {
  type FileContentType,
  type FilePurpose,
  isAllowedFileContentType,
  isFilePurpose,
  MAX_FILE_SIZE_BYTES,
} from './file-content-type';

export type FileStatus = 'pending_upload' | 'ready';

/** How long the signed upload target stays valid after the file record is created. */
export const FILE_UPLOAD_WINDOW_MS = 15 * 60 * 1000;

export interface FileState {
  id: string;
  organizationId: string;
  environment: Environment;
  status: FileStatus;
  fileName: string;
  /** Declared by the client at creation; completion checks the stored bytes against it. */
  contentType: FileContentType;
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

export class File {
  private state: FileState;
  private events: FileEvent[] = [];
  private persisted: number | null;

  private constructor(state: FileState, persistedVersion: number | null) {
    this.state = state;
    this.persisted = persistedVersion;
  }

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
        storageKey: `${input.environment}/${input.organizationId}/files/${id}`,
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

  static rehydrate(state: FileState): File {
    return new File(copyState(state), state.version);
  }

  get id(): string {
    return this.state.id;
  }
  get organizationId(): string {
    return this.state.organizationId;
  }
  get environment(): Environment {
    return this.state.environment;
  }
  get status(): FileStatus {
    return this.state.status;
  }
  get fileName(): string {
    return this.state.fileName;
  }
  get contentType(): FileContentType {
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
  get version(): number {
    return this.state.version;
  }
  /** The version last read from or written to storage; null until first saved. */
  get persistedVersion(): number | null {
    return this.persisted;
  }

  markPersisted(): void {
    this.persisted = this.state.version;
  }

  pullEvents(): FileEvent[] {
    const events = this.events;
    this.events = [];
    return events;
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

  /** Only completed files may be linked to an authorization (decision 14, spec "Attach a file"). */
  assertAttachable(): void {
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

const copyState = (state: FileState): FileState => ({
  ...state,
  createdAt: new Date(state.createdAt),
  completedAt: state.completedAt === null ? null : new Date(state.completedAt),
  uploadExpiresAt: new Date(state.uploadExpiresAt),
});
