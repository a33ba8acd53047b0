import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { createBlobStore } from './create-blob-store';
import { BlobStoreConfigError } from './errors';
import { FsBlobStore } from './fs-blob-store';
import { parseS3BlobStorageUrl, S3BlobStore } from './s3-blob-store';

// The SDK warns once per process that its 2027 releases need Node 22; the project runs Node 20 until then.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const OPTIONS = { publicBaseUrl: 'https://api.example.test', signingSecret: 'z'.repeat(32) };

describe('createBlobStore', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'create-blob-store-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('builds the filesystem adapter and its HTTP handler for a file:// URL', async () => {
    const storage = createBlobStore(pathToFileURL(join(root, 'blobs')).href, OPTIONS);
    expect(storage.kind).toBe('fs');
    expect(storage.store).toBeInstanceOf(FsBlobStore);
    expect((storage.store as FsBlobStore).root).toBe(join(root, 'blobs'));
    const key = 'sandbox/org_1/files/file_1';
    const { url } = await storage.store.createUploadTarget(key, {
      contentType: 'application/pdf',
      sizeBytes: 8,
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect(url).toMatch(/^https:\/\/api\.example\.test\/blobs\/upload\//);
    const token = url.slice(url.lastIndexOf('/') + 1);
    const result = await storage.http!.handleUpload(token, Readable.from([Buffer.from('%PDF-1.7')]), {
      'content-type': 'application/pdf',
    });
    expect(result.status).toBe(200);
    await expect(storage.store.stat(key)).resolves.toEqual({ sizeBytes: 8 });
    await storage.close();
  });

  it('builds the S3 adapter without an HTTP handler for an s3:// URL', async () => {
    const storage = createBlobStore('s3://my-bucket?region=eu-west-1', OPTIONS);
    expect(storage.kind).toBe('s3');
    expect(storage.store).toBeInstanceOf(S3BlobStore);
    expect(storage.http).toBeNull();
    await storage.close();
  });

  it.each([
    ['http://bucket.example.test', /scheme "http:" is not supported/],
    ['gs://bucket', /scheme "gs:" is not supported/],
    ['/var/data/blobs', /must be a file:\/\/ or s3:\/\/ URL/],
    ['', /must be a file:\/\/ or s3:\/\/ URL/],
    ['file://relative/blobs', /must be absolute/],
    ['file:///', /not the filesystem root/],
    ['file:///tmp/blobs?x=1', /no query/],
  ])('refuses %j clearly', (url, message) => {
    expect(() => createBlobStore(url, OPTIONS)).toThrow(BlobStoreConfigError);
    expect(() => createBlobStore(url, OPTIONS)).toThrow(message);
  });

  it('refuses a file:// store without a usable signing secret or public base URL', () => {
    const url = pathToFileURL(join(root, 'blobs')).href;
    expect(() => createBlobStore(url, { ...OPTIONS, signingSecret: 'short' })).toThrow(/at least 32/);
    expect(() => createBlobStore(url, { ...OPTIONS, publicBaseUrl: '' })).toThrow(/publicBaseUrl/);
  });

  it('never repeats an s3 secret in its errors', () => {
    const secret = 'wJalrXUtnFEMI-SECRET';
    for (const url of [
      `s3://bucket-1?secretAccessKey=${secret}&accessKeyId=AK&region=x&bogus=1`,
      `s3://bucket-1?secretAccessKey=${secret}`,
      `s3://BAD_BUCKET?accessKeyId=AK&secretAccessKey=${secret}`,
    ]) {
      expect(() => createBlobStore(url, OPTIONS)).toThrow(BlobStoreConfigError);
      try {
        createBlobStore(url, OPTIONS);
      } catch (error) {
        expect((error as Error).message).not.toContain(secret);
      }
    }
  });
});

describe('parseS3BlobStorageUrl', () => {
  it('reads bucket, prefix, endpoint, region, path style and static credentials', () => {
    expect(
      parseS3BlobStorageUrl(
        's3://prior-auth-files/env/a?endpoint=http://127.0.0.1:4569&region=us-east-1&forcePathStyle=true' +
          '&accessKeyId=AK&secretAccessKey=SK',
      ),
    ).toEqual({
      bucket: 'prior-auth-files',
      prefix: 'env/a/',
      endpoint: 'http://127.0.0.1:4569',
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AK', secretAccessKey: 'SK' },
    });
  });

  it('leaves region and credentials to the AWS chain when not given', () => {
    expect(parseS3BlobStorageUrl('s3://prior-auth-files')).toEqual({
      bucket: 'prior-auth-files',
      prefix: '',
      forcePathStyle: false,
    });
  });

  it('defaults the region to us-east-1 for a custom endpoint', () => {
    expect(parseS3BlobStorageUrl('s3://bucket-1?endpoint=http://localhost:9000').region).toBe('us-east-1');
  });

  it.each([
    ['s3://ab', /no valid S3 bucket/],
    ['s3://Upper-Case', /no valid S3 bucket/],
    ['s3://bucket-1:9000', /no valid S3 bucket/],
    ['s3://user:pass@bucket-1', /must not carry credentials/],
    ['s3://bucket-1?forcepathstyle=true', /unknown parameter "forcepathstyle"/],
    ['s3://bucket-1?forcePathStyle=yes', /true or false/],
    ['s3://bucket-1?endpoint=localhost:9000', /endpoint must be an absolute http\(s\) URL/],
    ['s3://bucket-1?accessKeyId=AK', /both accessKeyId and secretAccessKey/],
    ['s3://bucket-1?sessionToken=T', /sessionToken needs/],
    ['s3://bucket-1?region=a&region=b', /repeats the parameter "region"/],
    ['s3://bucket-1/.hidden/x', /prefix/],
    ['s3://bucket-1/a%20b', /prefix/],
  ])('refuses %j', (url, message) => {
    expect(() => parseS3BlobStorageUrl(url)).toThrow(message);
  });
});
