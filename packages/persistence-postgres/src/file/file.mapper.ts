import {
  File,
  type StoredFileContentType,
  type FilePurpose,
  type FileState,
  type FileStatus,
} from '@prior-auth/domain';
import type { FileRow } from './file.entity';

/** Row → aggregate through `File.rehydrate`, so the aggregate's copies and persisted version apply. */
export const toFile = (row: FileRow): File =>
  File.rehydrate({
    id: row.id,
    organizationId: row.organization_id,
    environment: row.environment,
    status: row.status as FileStatus,
    fileName: row.file_name,
    contentType: row.content_type as StoredFileContentType,
    purpose: row.purpose as FilePurpose,
    sizeBytes: row.size_bytes,
    checksumSha256: row.checksum_sha256,
    storageKey: row.storage_key,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    uploadExpiresAt: row.upload_expires_at,
    version: row.version,
  });

export const toFileRow = (state: FileState): FileRow => ({
  organization_id: state.organizationId,
  environment: state.environment,
  id: state.id,
  version: state.version,
  status: state.status,
  file_name: state.fileName,
  content_type: state.contentType,
  purpose: state.purpose,
  size_bytes: state.sizeBytes,
  checksum_sha256: state.checksumSha256,
  storage_key: state.storageKey,
  created_at: state.createdAt,
  completed_at: state.completedAt,
  upload_expires_at: state.uploadExpiresAt,
});
