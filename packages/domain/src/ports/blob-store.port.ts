/** Object storage for uploaded file bytes; keys are opaque strings chosen by the domain. */
export interface BlobStore {
  /** A signed, expiring target the client uploads the raw bytes to without an API key. */
  createUploadTarget(
    key: string,
    options: { contentType: string; sizeBytes: number; expiresAt: Date },
  ): Promise<{ url: string }>;
  createDownloadUrl(key: string, expiresAt: Date): Promise<string>;
  /** null when nothing was stored under the key. */
  stat(key: string): Promise<{ sizeBytes: number } | null>;
  /** The first `bytes` bytes (fewer when the object is shorter). */
  readHead(key: string, bytes: number): Promise<Uint8Array>;
  /** Lower-case hex SHA-256 of the stored bytes. */
  checksumSha256(key: string): Promise<string>;
  delete(key: string): Promise<void>;
}
