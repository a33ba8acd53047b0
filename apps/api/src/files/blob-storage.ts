import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBlobStore, type BlobStorage } from '@prior-auth/blob-storage';
import { dataDir, publicBaseUrl, type AppConfig } from '@prior-auth/platform';

/** `BLOB_STORAGE_URL`, or the embedded default: a `blobs` folder under the data directory. */
export const blobStorageUrl = (config: AppConfig): string =>
  config.BLOB_STORAGE_URL ?? pathToFileURL(join(dataDir(), 'blobs')).href;

/**
 * The BlobStore adapter the configuration names (ADR 0006): the filesystem (whose signed URLs point at this
 * API's `/blobs/...` routes) or S3 (presigned URLs straight to the bucket). `now` moves the clock the signed
 * URLs are checked against (tests); the caller closes the result at shutdown.
 */
export function openBlobStorage(config: AppConfig, options: { now?: () => Date } = {}): BlobStorage {
  if (!config.SIGNING_SECRET) throw new Error('SIGNING_SECRET is required to sign blob URLs');
  return createBlobStore(blobStorageUrl(config), {
    publicBaseUrl: publicBaseUrl(config),
    signingSecret: config.SIGNING_SECRET,
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
}
