import { type BlobStore } from '../ports/blob-store.port';

/** Blobs in a map; `upload` plays the client's PUT to the upload URL. */
export class InMemoryBlobStore implements BlobStore {
  readonly objects = new Map<string, Uint8Array>();
  readonly uploadTargets: Array<{ key: string; contentType: string; sizeBytes: number; expiresAt: Date }> =
    [];
  checksumReads = 0;

  upload(key: string, bytes: Uint8Array): void {
    this.objects.set(key, new Uint8Array(bytes));
  }

  /** Makes the next `put` reject, as a full disk or an unreachable bucket would. */
  failNextPut: Error | null = null;

  async put(key: string, bytes: Uint8Array): Promise<{ sizeBytes: number; checksumSha256: string }> {
    if (this.failNextPut !== null) {
      const error = this.failNextPut;
      this.failNextPut = null;
      throw error;
    }
    this.objects.set(key, new Uint8Array(bytes));
    return { sizeBytes: bytes.length, checksumSha256: await this.checksumSha256(key) };
  }

  async createUploadTarget(
    key: string,
    options: { contentType: string; sizeBytes: number; expiresAt: Date },
  ): Promise<{ url: string }> {
    this.uploadTargets.push({ key, ...options });
    return { url: `memory://upload/${key}?expires=${options.expiresAt.toISOString()}` };
  }

  async createDownloadUrl(key: string, expiresAt: Date): Promise<string> {
    return `memory://download/${key}?expires=${expiresAt.toISOString()}`;
  }

  async stat(key: string): Promise<{ sizeBytes: number } | null> {
    const bytes = this.objects.get(key);
    return bytes === undefined ? null : { sizeBytes: bytes.length };
  }

  async readHead(key: string, bytes: number): Promise<Uint8Array> {
    return (this.objects.get(key) ?? new Uint8Array()).slice(0, bytes);
  }

  /** Not SHA-256 (no Node crypto in the domain): a deterministic 64-hex-digit stand-in. */
  async checksumSha256(key: string): Promise<string> {
    this.checksumReads += 1;
    let hash = 0x811c9dc5;
    for (const byte of this.objects.get(key) ?? []) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
    return hash.toString(16).padStart(8, '0').repeat(8);
  }

  async promote(fromKey: string, toKey: string): Promise<void> {
    const bytes = this.objects.get(fromKey);
    if (bytes === undefined) throw new Error(`nothing stored under ${fromKey}`);
    this.objects.set(toKey, new Uint8Array(bytes));
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }
}
