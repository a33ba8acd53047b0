import { type Readable } from 'node:stream';
import { sniffContentType } from '@prior-auth/domain';
import { BlobTooLargeError, BlobUploadInterruptedError } from './errors';
import { type FsBlobStore } from './fs-blob-store';
import { type BlobUrlOperation, type BlobUrlRefusalReason, type SignedBlobUrls } from './signed-blob-urls';

/** Request headers as Node gives them (`IncomingMessage.headers`): lower-case names. */
export type BlobRequestHeaders = Record<string, string | string[] | undefined>;

export type BlobHttpErrorCode =
  | 'upload_url_invalid'
  | 'upload_url_expired'
  | 'upload_content_type_mismatch'
  | 'upload_too_large'
  | 'upload_interrupted'
  | 'download_url_invalid'
  | 'download_url_expired'
  | 'download_not_found';

/** The parts of the API's error envelope this layer knows; the API adds `retryable`, `issues`, `requestId`. */
export interface BlobHttpError {
  code: BlobHttpErrorCode;
  message: string;
  details: Record<string, unknown>;
}

export type BlobHttpFailure = {
  ok: false;
  status: 400 | 403 | 404 | 413 | 415;
  headers: Record<string, string>;
  error: BlobHttpError;
};

export type BlobUploadResponse =
  { ok: true; status: 200; headers: Record<string, string>; body: { sizeBytes: number } } | BlobHttpFailure;

export type BlobDownloadResponse =
  { ok: true; status: 200; headers: Record<string, string>; stream: Readable } | BlobHttpFailure;

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * The framework-free core of the filesystem adapter's two HTTP endpoints. The API mounts
 * `PUT /blobs/upload/:token` → `handleUpload(token, req, req.headers)` and
 * `GET /blobs/download/:token` → `handleDownload(token)`, outside `/v1`, with no API key, before any body
 * parser or JSON content-type check. It writes `status` and `headers` back, then either the JSON `body` (ok) or
 * the API's error envelope built from `error` (not ok), or pipes `stream` (download); if a download stream
 * fails after the headers went out, it destroys the response rather than answering again.
 */
export class BlobHttpHandler {
  constructor(
    private readonly store: FsBlobStore,
    private readonly urls: SignedBlobUrls,
  ) {}

  async handleUpload(
    token: string,
    body: NodeJS.ReadableStream,
    headers: BlobRequestHeaders,
  ): Promise<BlobUploadResponse> {
    const verified = this.urls.verify(token, { op: 'put' });
    if (!verified.ok) return refused('put', verified.reason);
    const { key, contentType, maxBytes } = verified.claims;
    const allowed = maxBytes ?? 0;

    const declaredType = mediaType(header(headers, 'content-type'));
    if (contentType !== null && declaredType !== contentType.toLowerCase()) {
      return failure(
        415,
        'upload_content_type_mismatch',
        'The Content-Type must be the one declared for the file.',
        {
          expectedContentType: contentType,
          contentType: declaredType,
        },
      );
    }
    const declaredLength = contentLength(header(headers, 'content-length'));
    if (declaredLength !== null && declaredLength > allowed) {
      // Answer before reading a byte; the connection is closed since the body is left unread.
      return tooLarge(allowed);
    }
    try {
      const { sizeBytes } = await this.store.write(key, body, { maxBytes: allowed });
      return { ok: true, status: 200, headers: { ...NO_STORE }, body: { sizeBytes } };
    } catch (error) {
      if (error instanceof BlobTooLargeError) return tooLarge(allowed);
      if (error instanceof BlobUploadInterruptedError) {
        return failure(
          400,
          'upload_interrupted',
          'The upload ended before all bytes arrived; upload again.',
          {},
          {
            connection: 'close',
          },
        );
      }
      throw error;
    }
  }

  async handleDownload(token: string): Promise<BlobDownloadResponse> {
    const verified = this.urls.verify(token, { op: 'get' });
    if (!verified.ok) return refused('get', verified.reason);
    const reader = await this.store.openRead(verified.claims.key);
    if (reader === null)
      return failure(404, 'download_not_found', 'Nothing is stored for this download URL.');
    return {
      ok: true,
      status: 200,
      headers: {
        // Only verified types are ever stored as ready files; the bytes say which one.
        'content-type': sniffContentType(reader.head) ?? 'application/octet-stream',
        'content-length': String(reader.sizeBytes),
        'content-disposition': 'attachment',
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-store',
      },
      stream: reader.stream,
    };
  }
}

function refused(op: BlobUrlOperation, reason: BlobUrlRefusalReason): BlobHttpFailure {
  const prefix = op === 'put' ? 'upload' : 'download';
  if (reason === 'expired') {
    return failure(403, `${prefix}_url_expired`, `The ${prefix} URL has expired; request a new one.`, {
      reason,
    });
  }
  return failure(403, `${prefix}_url_invalid`, `The ${prefix} URL is not valid.`, { reason });
}

function tooLarge(maxBytes: number): BlobHttpFailure {
  return failure(
    413,
    'upload_too_large',
    'The upload is larger than the size declared for the file.',
    { maxBytes },
    { connection: 'close' },
  );
}

function failure(
  status: BlobHttpFailure['status'],
  code: BlobHttpErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): BlobHttpFailure {
  return { ok: false, status, headers: { ...NO_STORE, ...headers }, error: { code, message, details } };
}

function header(headers: BlobRequestHeaders, name: string): string | undefined {
  const value =
    headers[name] ?? headers[Object.keys(headers).find((key) => key.toLowerCase() === name) ?? ''];
  return Array.isArray(value) ? value[0] : value;
}

function mediaType(value: string | undefined): string | null {
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return type ? type : null;
}

function contentLength(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value.trim())) return null;
  return Number(value.trim());
}
