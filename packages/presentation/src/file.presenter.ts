import type { File } from '@prior-auth/domain';

/*
 * The spec's File, built field by field (the storage key, tenant and version counter are never presented).
 * Every field is always present, `null` when it does not apply (as for authorizations, ADR 0012):
 * `uploadUrl` only in the answer to create (the URL is minted once and not stored), `downloadUrl` only when
 * reading one ready file (a fresh short-lived URL per read), `completedAt` and `checksumSha256` once ready.
 */

const iso = (date: Date): string => new Date(date).toISOString();

export interface FileUrls {
  uploadUrl?: string | null;
  downloadUrl?: string | null;
}

export function presentFile(file: File, urls: FileUrls = {}) {
  const s = file.toState();
  return {
    id: s.id,
    status: s.status,
    fileName: s.fileName,
    contentType: s.contentType,
    purpose: s.purpose,
    sizeBytes: s.sizeBytes,
    checksumSha256: s.checksumSha256,
    createdAt: iso(s.createdAt),
    completedAt: s.completedAt === null ? null : iso(s.completedAt),
    uploadUrl: s.status === 'pending_upload' ? (urls.uploadUrl ?? null) : null,
    uploadExpiresAt: iso(s.uploadExpiresAt),
    downloadUrl: s.status === 'ready' ? (urls.downloadUrl ?? null) : null,
  };
}

export type PresentedFile = ReturnType<typeof presentFile>;
