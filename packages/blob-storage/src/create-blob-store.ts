import { fileURLToPath } from 'node:url';
import { type BlobStore } from '@prior-auth/domain';
import { BlobHttpHandler } from './blob-http-handler';
import { BlobStoreConfigError } from './errors';
import { FsBlobStore } from './fs-blob-store';
import { parseS3BlobStorageUrl, S3BlobStore } from './s3-blob-store';
import { SignedBlobUrls } from './signed-blob-urls';

export interface CreateBlobStoreOptions {
  /** Where the API is reached (PUBLIC_BASE_URL); the filesystem adapter's URLs point there. */
  publicBaseUrl: string;
  /** SIGNING_SECRET (≥ 32 characters); signs the filesystem adapter's URLs. */
  signingSecret: string;
  /** Largest upload signed for; defaults to the domain's MAX_FILE_SIZE_BYTES. */
  maxObjectBytes?: number;
  now?: () => Date;
}

/**
 * The adapter chosen by BLOB_STORAGE_URL. `http` is the core of the API's `/blobs/upload/:token` and
 * `/blobs/download/:token` routes when the filesystem adapter serves the bytes itself; null for S3, whose
 * presigned URLs point at the bucket (the API then answers those routes 404).
 */
export interface BlobStorage {
  kind: 'fs' | 's3';
  store: BlobStore;
  http: BlobHttpHandler | null;
  /** Releases connections (S3); a no-op for the filesystem. */
  close(): Promise<void>;
}

/**
 * `file:///absolute/folder` → FsBlobStore (e.g. `pathToFileURL(join(dataDir(), 'blobs')).href`);
 * `s3://bucket[/prefix]?endpoint=…&region=…&forcePathStyle=true` → S3BlobStore. Anything else is refused with
 * a message that names the scheme only (the URL may hold a secret).
 */
export function createBlobStore(url: string, options: CreateBlobStoreOptions): BlobStorage {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim())?.[1]?.toLowerCase();
  if (scheme === 'file') {
    const urls = new SignedBlobUrls({
      publicBaseUrl: options.publicBaseUrl,
      signingSecret: options.signingSecret,
      ...(options.now !== undefined ? { now: options.now } : {}),
    });
    const store = new FsBlobStore({
      root: fileRoot(url.trim()),
      urls,
      ...(options.maxObjectBytes !== undefined ? { maxObjectBytes: options.maxObjectBytes } : {}),
    });
    return { kind: 'fs', store, http: new BlobHttpHandler(store, urls), close: async () => undefined };
  }
  if (scheme === 's3') {
    const store = new S3BlobStore({
      config: parseS3BlobStorageUrl(url.trim()),
      ...(options.maxObjectBytes !== undefined ? { maxObjectBytes: options.maxObjectBytes } : {}),
      ...(options.now !== undefined ? { now: options.now } : {}),
    });
    return { kind: 's3', store, http: null, close: async () => store.close() };
  }
  throw new BlobStoreConfigError(
    scheme === undefined
      ? 'BLOB_STORAGE_URL must be a file:// or s3:// URL'
      : `BLOB_STORAGE_URL scheme "${scheme}:" is not supported; use file:///absolute/folder or s3://bucket`,
  );
}

function fileRoot(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BlobStoreConfigError('BLOB_STORAGE_URL is not a valid file:// URL');
  }
  if (parsed.hostname !== '' && parsed.hostname !== 'localhost') {
    throw new BlobStoreConfigError(
      `BLOB_STORAGE_URL file URL must be absolute (file:///folder), not on host "${parsed.hostname}"`,
    );
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    throw new BlobStoreConfigError('BLOB_STORAGE_URL file URL takes no query or fragment');
  }
  const root = fileURLToPath(parsed);
  if (root === '/' || root.replace(/\/+$/, '') === '') {
    throw new BlobStoreConfigError('BLOB_STORAGE_URL file URL must name a folder, not the filesystem root');
  }
  return root;
}
