/**
 * Adapters of the domain's BlobStore port (decisions 0027 and 0006).
 *
 * - `createBlobStore(BLOB_STORAGE_URL, { publicBaseUrl, signingSecret })` picks FsBlobStore (`file://`) or
 *   S3BlobStore (`s3://`).
 * - With the filesystem adapter the API serves the bytes: it mounts `BLOB_UPLOAD_ROUTE` (PUT) and
 *   `BLOB_DOWNLOAD_ROUTE` (GET) outside `/v1`, with no API key and no body parser, and hands the request to
 *   `BlobHttpHandler.handleUpload(token, req, req.headers)` / `handleDownload(token)`.
 */
export * from './blob-key';
export * from './errors';
export * from './signed-blob-urls';
export * from './fs-blob-store';
export * from './blob-http-handler';
export * from './s3-blob-store';
export * from './create-blob-store';
