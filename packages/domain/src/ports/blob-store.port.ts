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
  /**
   * Copies the object under `fromKey` to `toKey`, replacing whatever was there. Upload URLs stay valid after
   * completion and cannot be revoked, so the bytes a completion checks and a reader gets are never the
   * uploaded object itself but a copy only the service writes (see `fileBlobKey`). Rejects when nothing is
   * stored under `fromKey`.
   */
  promote(fromKey: string, toKey: string): Promise<void>;
  /**
   * Stores bytes the service itself produced (payer evidence, decision 0020) under `key`, replacing whatever
   * was there, and answers what was stored: its size and lower-case hex SHA-256.
   */
  put(
    key: string,
    bytes: Uint8Array,
    options: { contentType: string },
  ): Promise<{ sizeBytes: number; checksumSha256: string }>;
  delete(key: string): Promise<void>;
}
