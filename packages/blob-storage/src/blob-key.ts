import { MAX_FILE_SIZE_BYTES } from '@prior-auth/domain';

/**
 * Keys are chosen by the domain (`<env>/<org>/files/<id>`) but end up as file paths and object names, so
 * both adapters accept only plain `/`-separated segments: no empty, `.`-leading or traversal segments.
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const MAX_KEY_LENGTH = 512;

export function assertValidBlobKey(key: string): void {
  const valid =
    typeof key === 'string' &&
    key.length > 0 &&
    key.length <= MAX_KEY_LENGTH &&
    key.split('/').every((segment) => SEGMENT.test(segment));
  if (!valid) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
}

/** Declared sizes an adapter will sign an upload for: 1 byte up to the documented maximum (decision 0027). */
export function assertUploadSize(sizeBytes: number, maxBytes: number = MAX_FILE_SIZE_BYTES): void {
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 1 || sizeBytes > maxBytes) {
    throw new Error(`upload size must be a whole number of bytes from 1 to ${maxBytes}, got ${sizeBytes}`);
  }
}
