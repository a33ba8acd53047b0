import type { Environment } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/** A row of `files` (migration 1763741000000). The bytes live in the blob store under `storage_key`. */
export interface FileRow {
  organization_id: string;
  environment: Environment;
  id: string;
  version: number;
  status: string;
  file_name: string;
  content_type: string;
  purpose: string;
  size_bytes: number;
  checksum_sha256: string | null;
  storage_key: string;
  created_at: Date;
  completed_at: Date | null;
  upload_expires_at: Date;
}

export const FileEntity = new EntitySchema<FileRow>({
  name: 'file',
  tableName: 'files',
  columns: {
    organization_id: { type: 'text', primary: true },
    environment: { type: 'text', primary: true },
    id: { type: 'text', primary: true },
    version: { type: 'integer' },
    status: { type: 'text' },
    file_name: { type: 'text' },
    content_type: { type: 'text' },
    purpose: { type: 'text' },
    size_bytes: { type: 'integer' },
    checksum_sha256: { type: 'text', nullable: true },
    storage_key: { type: 'text' },
    created_at: { type: 'timestamptz' },
    completed_at: { type: 'timestamptz', nullable: true },
    upload_expires_at: { type: 'timestamptz' },
  },
});
