/** More bytes arrived than the signed upload allowed; nothing was stored. */
export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the upload exceeds the allowed ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

/** The upload stream failed or ended early (client gone, socket reset); nothing was stored. */
export class BlobUploadInterruptedError extends Error {
  constructor(cause: unknown) {
    super('the upload stream ended before it completed', { cause });
    this.name = 'BlobUploadInterruptedError';
  }
}

/** `readHead` or `checksumSha256` asked about a key under which nothing is stored. */
export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`no blob is stored under key ${JSON.stringify(key)}`);
    this.name = 'BlobNotFoundError';
  }
}

/** A BLOB_STORAGE_URL (or adapter option) that cannot be used. Messages never echo credentials. */
export class BlobStoreConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlobStoreConfigError';
  }
}
