import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { BlobNotFoundError, createBlobStore, S3BlobStore, parseS3BlobStorageUrl } from '../src';

/**
 * S3BlobStore against s3rver, an S3-compatible server run in this process on a loopback port: every call is
 * real HTTP through the real AWS SDK. s3rver checks a presigned URL's expiry and access key but, unlike S3,
 * not its SigV4 signature, so the signed Content-Type/Content-Length conditions are asserted on the URL.
 */
const BUCKET = 'prior-auth-test';
const KEY = 'sandbox/org_1/files/file_1';
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(20_000)]);
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const inMinutes = (minutes: number): Date => new Date(Date.now() + minutes * 60_000);

// The SDK warns once per process that its 2027 releases need Node 22; the project runs Node 20 until then.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

let directory: string;
let server: S3rver;
let endpoint: string;
let store: S3BlobStore;
let raw: S3Client;

const storageUrl = (extra = '') =>
  `s3://${BUCKET}/tenant-blobs?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&forcePathStyle=true` +
  `&accessKeyId=S3RVER&secretAccessKey=S3RVER${extra}`;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const address: AddressInfo = await server.run();
  endpoint = `http://127.0.0.1:${address.port}`;
  store = new S3BlobStore({ config: parseS3BlobStorageUrl(storageUrl()) });
  raw = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
});

afterAll(async () => {
  store?.close();
  raw?.destroy();
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

async function presignedPut(key: string, body: Buffer, contentType = 'application/pdf'): Promise<Response> {
  const { url } = await store.createUploadTarget(key, {
    contentType,
    sizeBytes: body.length,
    expiresAt: inMinutes(15),
  });
  return fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body });
}

describe('S3BlobStore (s3rver over HTTP)', () => {
  it('uploads through a presigned PUT, then stats, reads the head, hashes and deletes', async () => {
    const put = await presignedPut(KEY, PDF);
    expect(put.status).toBe(200);

    await expect(store.stat(KEY)).resolves.toEqual({ sizeBytes: PDF.length });
    await expect(store.readHead(KEY, 8)).resolves.toEqual(new Uint8Array(PDF.subarray(0, 8)));
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(PDF));

    await store.delete(KEY);
    await expect(store.stat(KEY)).resolves.toBeNull();
    await expect(store.delete(KEY)).resolves.toBeUndefined();
  });

  it('keeps objects under the key prefix of the URL', async () => {
    await presignedPut(KEY, PDF);
    const other = new S3BlobStore({ config: { ...parseS3BlobStorageUrl(storageUrl()), prefix: '' } });
    try {
      await expect(other.stat(`tenant-blobs/${KEY}`)).resolves.toEqual({ sizeBytes: PDF.length });
      await expect(other.stat(KEY)).resolves.toBeNull();
    } finally {
      other.close();
      await store.delete(KEY);
    }
  });

  it('signs Content-Type and Content-Length into the upload URL, with no body checksum, valid until expiresAt', async () => {
    const expiresAt = new Date(Date.now() + 15 * 60_000 + 500);
    const { url } = await store.createUploadTarget(KEY, {
      contentType: 'image/png',
      sizeBytes: 1234,
      expiresAt,
    });
    const query = new URL(url).searchParams;
    expect(new URL(url).pathname).toBe(`/${BUCKET}/tenant-blobs/${KEY}`);
    expect(query.get('X-Amz-SignedHeaders')?.split(';')).toEqual(['content-length', 'content-type', 'host']);
    expect(Number(query.get('X-Amz-Expires'))).toBeGreaterThanOrEqual(15 * 60 - 1);
    expect(Number(query.get('X-Amz-Expires'))).toBeLessThanOrEqual(15 * 60);
    expect([...query.keys()].some((name) => name.toLowerCase().includes('checksum'))).toBe(false);
  });

  it('serves the bytes through a presigned GET as an attachment', async () => {
    await presignedPut(KEY, PDF);
    const get = await fetch(await store.createDownloadUrl(KEY, inMinutes(5)));
    expect(get.status).toBe(200);
    expect(get.headers.get('content-disposition')).toBe('attachment');
    expect(Buffer.from(await get.arrayBuffer())).toEqual(PDF);
    await store.delete(KEY);
  });

  it('puts bytes the service produced with their content type, answering size and SHA-256', async () => {
    const html = Buffer.from('<html><body>PSX-0123456789</body></html>');
    await expect(store.put(KEY, html, { contentType: 'text/html' })).resolves.toEqual({
      sizeBytes: html.length,
      checksumSha256: sha256(html),
    });
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(html));
    await store.delete(KEY);
  });

  it('produces URLs the server refuses once expired', async () => {
    const signedLongAgo = new S3BlobStore({
      config: parseS3BlobStorageUrl(storageUrl()),
      now: () => new Date(Date.now() - 60 * 60_000),
    });
    try {
      const expiresAt = new Date(Date.now() - 59 * 60_000);
      const { url } = await signedLongAgo.createUploadTarget(KEY, {
        contentType: 'application/pdf',
        sizeBytes: PDF.length,
        expiresAt,
      });
      const put = await fetch(url, {
        method: 'PUT',
        headers: { 'content-type': 'application/pdf' },
        body: PDF,
      });
      expect(put.status).toBe(403);
      expect(await put.text()).toMatch(/expired/i);
      const get = await fetch(await signedLongAgo.createDownloadUrl(KEY, expiresAt));
      expect(get.status).toBe(403);
      await expect(store.stat(KEY)).resolves.toBeNull();
    } finally {
      signedLongAgo.close();
    }
  });

  it('refuses to sign an already expired URL or an out-of-range size', async () => {
    await expect(
      store.createUploadTarget(KEY, { contentType: 'application/pdf', sizeBytes: 10, expiresAt: new Date() }),
    ).rejects.toThrow(/expire/);
    await expect(
      store.createUploadTarget(KEY, {
        contentType: 'application/pdf',
        sizeBytes: 0,
        expiresAt: inMinutes(1),
      }),
    ).rejects.toThrow(/upload size/);
    await expect(store.createDownloadUrl('../escape', inMinutes(1))).rejects.toThrow(/invalid blob key/);
  });

  it('reads a head shorter than asked; stats and hashes an empty object', async () => {
    await raw.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: `tenant-blobs/${KEY}`, Body: Buffer.from('%PD') }),
    );
    await expect(store.readHead(KEY, 8)).resolves.toEqual(new Uint8Array(Buffer.from('%PD')));
    await expect(store.readHead(KEY, 0)).resolves.toEqual(new Uint8Array(0));
    // (A ranged read of an empty object is not checked here: S3 answers 416, which readHead maps to no bytes,
    // but s3rver answers a broken 206.)
    await raw.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: `tenant-blobs/${KEY}`, Body: Buffer.alloc(0) }),
    );
    await expect(store.stat(KEY)).resolves.toEqual({ sizeBytes: 0 });
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(new Uint8Array(0)));
    await store.delete(KEY);
  });

  it('hashes a multi-megabyte object by streaming it', async () => {
    const big = randomBytes(5 * 1024 * 1024 + 3);
    expect((await presignedPut(KEY, big)).status).toBe(200);
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(big));
    await store.delete(KEY);
  });

  it('answers null from stat and BlobNotFoundError from readHead/checksum for a missing key', async () => {
    await expect(store.stat('sandbox/org_1/files/missing')).resolves.toBeNull();
    await expect(store.readHead('sandbox/org_1/files/missing', 8)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.checksumSha256('sandbox/org_1/files/missing')).rejects.toBeInstanceOf(
      BlobNotFoundError,
    );
  });

  it('promotes a server-side copy that a later presigned PUT to the source does not change', async () => {
    const content = 'sandbox/org_1/content/file_1/sha256-abc';
    expect((await presignedPut(KEY, PDF)).status).toBe(200);
    await store.promote(KEY, content);
    const other = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(20_000)]);
    expect((await presignedPut(KEY, other)).status).toBe(200);

    await expect(store.checksumSha256(content)).resolves.toBe(sha256(PDF));
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(other));
    const get = await fetch(await store.createDownloadUrl(content, inMinutes(5)));
    expect(Buffer.from(await get.arrayBuffer())).toEqual(PDF);

    // Promoting again replaces the destination.
    await store.promote(KEY, content);
    await expect(store.checksumSha256(content)).resolves.toBe(sha256(other));
    await expect(store.promote('sandbox/org_1/files/missing', content)).rejects.toBeInstanceOf(
      BlobNotFoundError,
    );
    await store.delete(KEY);
    await store.delete(content);
  });

  it('is what createBlobStore builds for an s3:// URL', async () => {
    const storage = createBlobStore(storageUrl(), {
      publicBaseUrl: 'http://unused.test',
      signingSecret: 'x'.repeat(32),
    });
    try {
      expect(storage.kind).toBe('s3');
      expect(storage.http).toBeNull();
      expect(storage.store).toBeInstanceOf(S3BlobStore);
      await expect(storage.store.stat('sandbox/org_1/files/missing')).resolves.toBeNull();
    } finally {
      await storage.close();
    }
  });
});
