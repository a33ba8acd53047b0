import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type BlobStore, MAX_FILE_SIZE_BYTES } from '@prior-auth/domain';
import { assertUploadSize, assertValidBlobKey } from './blob-key';
import { BlobNotFoundError, BlobStoreConfigError } from './errors';

/** What an `s3://` BLOB_STORAGE_URL says. */
export interface S3BlobStoreConfig {
  bucket: string;
  /** Prepended to every key (`s3://bucket/some/prefix` → `some/prefix/`); empty for none. */
  prefix: string;
  /** Omitted: the SDK's chain (AWS_REGION, shared config); `us-east-1` when a custom endpoint is given. */
  region?: string;
  /** A custom S3-compatible endpoint (MinIO, a local test server); omitted for AWS itself. */
  endpoint?: string;
  forcePathStyle: boolean;
  /** Explicit static credentials (local test servers); omitted: the standard AWS credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

const QUERY_PARAMS = new Set([
  'endpoint',
  'region',
  'forcePathStyle',
  'accessKeyId',
  'secretAccessKey',
  'sessionToken',
]);
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** S3's own ceiling for a presigned URL (SigV4): seven days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 60 * 60;

/**
 * Parses `s3://bucket[/prefix]?endpoint=http://127.0.0.1:4569&region=us-east-1&forcePathStyle=true`
 * (`accessKeyId`/`secretAccessKey`/`sessionToken` optional). Unknown parameters are refused so a typo does not
 * silently fall back to a default; error messages never repeat the URL, which may hold a secret.
 */
export function parseS3BlobStorageUrl(url: string): S3BlobStoreConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BlobStoreConfigError('BLOB_STORAGE_URL is not a valid URL');
  }
  if (parsed.protocol !== 's3:') throw new BlobStoreConfigError('BLOB_STORAGE_URL must start with s3://');
  if (parsed.username !== '' || parsed.password !== '') {
    throw new BlobStoreConfigError(
      'BLOB_STORAGE_URL must not carry credentials before the bucket; use accessKeyId/secretAccessKey parameters',
    );
  }
  const bucket = parsed.hostname;
  if (!BUCKET_NAME.test(bucket) || parsed.port !== '') {
    throw new BlobStoreConfigError('BLOB_STORAGE_URL names no valid S3 bucket (s3://bucket-name?…)');
  }
  for (const name of parsed.searchParams.keys()) {
    if (!QUERY_PARAMS.has(name)) {
      throw new BlobStoreConfigError(
        `BLOB_STORAGE_URL has an unknown parameter "${name}"; known: ${[...QUERY_PARAMS].join(', ')}`,
      );
    }
  }
  const param = (name: string): string | undefined => {
    const values = parsed.searchParams.getAll(name);
    if (values.length > 1) throw new BlobStoreConfigError(`BLOB_STORAGE_URL repeats the parameter "${name}"`);
    const value = values[0]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };

  const endpoint = param('endpoint');
  if (endpoint !== undefined) {
    let endpointUrl: URL | null = null;
    try {
      endpointUrl = new URL(endpoint);
    } catch {
      endpointUrl = null;
    }
    if (endpointUrl === null || (endpointUrl.protocol !== 'http:' && endpointUrl.protocol !== 'https:')) {
      throw new BlobStoreConfigError('BLOB_STORAGE_URL endpoint must be an absolute http(s) URL');
    }
  }
  const forcePathStyle = param('forcePathStyle');
  if (forcePathStyle !== undefined && forcePathStyle !== 'true' && forcePathStyle !== 'false') {
    throw new BlobStoreConfigError('BLOB_STORAGE_URL forcePathStyle must be true or false');
  }
  const accessKeyId = param('accessKeyId');
  const secretAccessKey = param('secretAccessKey');
  const sessionToken = param('sessionToken');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new BlobStoreConfigError('BLOB_STORAGE_URL needs both accessKeyId and secretAccessKey, or neither');
  }
  if (sessionToken !== undefined && accessKeyId === undefined) {
    throw new BlobStoreConfigError('BLOB_STORAGE_URL sessionToken needs accessKeyId and secretAccessKey');
  }
  const prefix = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, '');
  if (prefix !== '') assertPrefix(prefix);

  const region = param('region') ?? (endpoint !== undefined ? 'us-east-1' : undefined);
  return {
    bucket,
    prefix: prefix === '' ? '' : `${prefix}/`,
    ...(region !== undefined ? { region } : {}),
    ...(endpoint !== undefined ? { endpoint } : {}),
    forcePathStyle: forcePathStyle === 'true',
    ...(accessKeyId !== undefined && secretAccessKey !== undefined
      ? {
          credentials: {
            accessKeyId,
            secretAccessKey,
            ...(sessionToken !== undefined ? { sessionToken } : {}),
          },
        }
      : {}),
  };
}

function assertPrefix(prefix: string): void {
  try {
    assertValidBlobKey(prefix);
  } catch {
    throw new BlobStoreConfigError('BLOB_STORAGE_URL key prefix (the path after the bucket) is not valid');
  }
}

export interface S3BlobStoreOptions {
  config: S3BlobStoreConfig;
  /** Largest upload the store signs a URL for; defaults to the domain's MAX_FILE_SIZE_BYTES. */
  maxObjectBytes?: number;
  /** The signing time of presigned URLs; tests move it to check expiry. */
  now?: () => Date;
}

/**
 * BlobStore on S3 or any S3-compatible server. Clients upload and download straight to the bucket with
 * presigned URLs; the Content-Type and Content-Length of an upload are signed, so S3 refuses any other type or
 * size. Bytes are never buffered whole: the checksum streams the object through SHA-256.
 */
export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly maxObjectBytes: number;
  private readonly now: () => Date;

  constructor(options: S3BlobStoreOptions) {
    const { config } = options;
    const clientConfig: S3ClientConfig = {
      forcePathStyle: config.forcePathStyle,
      // Otherwise the SDK signs a CRC32 of the (empty) body into presigned PUT URLs, which S3 then enforces.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(config.region !== undefined ? { region: config.region } : {}),
      ...(config.endpoint !== undefined ? { endpoint: config.endpoint } : {}),
      ...(config.credentials !== undefined ? { credentials: config.credentials } : {}),
    };
    this.client = new S3Client(clientConfig);
    this.bucket = config.bucket;
    this.prefix = config.prefix;
    this.maxObjectBytes = options.maxObjectBytes ?? MAX_FILE_SIZE_BYTES;
    this.now = options.now ?? (() => new Date());
  }

  async createUploadTarget(
    key: string,
    options: { contentType: string; sizeBytes: number; expiresAt: Date },
  ): Promise<{ url: string }> {
    assertUploadSize(options.sizeBytes, this.maxObjectBytes);
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ContentType: options.contentType,
      ContentLength: options.sizeBytes,
    });
    const url = await getSignedUrl(this.client, command, {
      ...this.expiry(options.expiresAt),
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    return { url };
  }

  async createDownloadUrl(key: string, expiresAt: Date): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentDisposition: 'attachment',
      ResponseCacheControl: 'private, no-store',
    });
    return getSignedUrl(this.client, command, this.expiry(expiresAt));
  }

  async stat(key: string): Promise<{ sizeBytes: number } | null> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      );
      return { sizeBytes: head.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async readHead(key: string, bytes: number): Promise<Uint8Array> {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new Error(`cannot read ${bytes} bytes`);
    if (bytes === 0) {
      if ((await this.stat(key)) === null) throw new BlobNotFoundError(key);
      return new Uint8Array(0);
    }
    try {
      const object = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(key),
          Range: `bytes=0-${bytes - 1}`,
        }),
      );
      const body = object.Body;
      if (body === undefined) return new Uint8Array(0);
      const received = await body.transformToByteArray();
      // A server ignoring Range answers the whole object: keep only what was asked for.
      return received.length > bytes ? received.slice(0, bytes) : received;
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(key);
      // A range starting past the end of an empty object.
      if (statusOf(error) === 416) return new Uint8Array(0);
      throw error;
    }
  }

  async checksumSha256(key: string): Promise<string> {
    let body: Readable;
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      );
      if (!(object.Body instanceof Readable)) throw new Error('the S3 client returned no Node.js stream');
      body = object.Body;
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(key);
      throw error;
    }
    const hash = createHash('sha256');
    await pipeline(body, hash);
    return hash.digest('hex');
  }

  /**
   * A server-side CopyObject (type and metadata copied along), replacing any object at `toKey`. Presigned
   * upload URLs cannot be revoked, so readers only ever get such copies. Throws BlobNotFoundError when nothing
   * is stored under `fromKey`. (CopyObject handles objects up to 5 GiB, far above the upload limit.)
   */
  async promote(fromKey: string, toKey: string): Promise<void> {
    const source = `${this.bucket}/${this.objectKey(fromKey)}`
      .split('/')
      .map((part) => encodeURIComponent(part))
      .join('/');
    try {
      await this.client.send(
        new CopyObjectCommand({ Bucket: this.bucket, Key: this.objectKey(toKey), CopySource: source }),
      );
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(fromKey);
      throw error;
    }
  }

  /** Bytes the service produced (payer evidence): one PutObject, whose content type downloads keep. */
  async put(
    key: string,
    bytes: Uint8Array,
    options: { contentType: string },
  ): Promise<{ sizeBytes: number; checksumSha256: string }> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.objectKey(key),
        Body: bytes,
        ContentType: options.contentType,
        ContentLength: bytes.length,
      }),
    );
    return { sizeBytes: bytes.length, checksumSha256: createHash('sha256').update(bytes).digest('hex') };
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  /** Releases the HTTP connections; call at shutdown. */
  close(): void {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    assertValidBlobKey(key);
    return `${this.prefix}${key}`;
  }

  private expiry(expiresAt: Date): { expiresIn: number; signingDate: Date } {
    const signingDate = this.now();
    const seconds = Math.floor((expiresAt.getTime() - signingDate.getTime()) / 1000);
    if (seconds < 1) throw new Error('a presigned URL must expire at least one second from now');
    // Never valid longer than asked; S3 caps SigV4 URLs at seven days.
    return { expiresIn: Math.min(seconds, MAX_PRESIGN_SECONDS), signingDate };
  }
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  return name === 'NotFound' || name === 'NoSuchKey' || statusOf(error) === 404;
}
