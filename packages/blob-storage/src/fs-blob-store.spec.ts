import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { BlobNotFoundError, BlobTooLargeError, BlobUploadInterruptedError } from './errors';
import { FsBlobStore } from './fs-blob-store';
import { SignedBlobUrls } from './signed-blob-urls';

const KEY = 'sandbox/org_1/files/file_1';
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(3000)]);
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

let root: string;
let store: FsBlobStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'fs-blob-store-'));
  store = new FsBlobStore({
    root,
    urls: new SignedBlobUrls({ publicBaseUrl: 'http://127.0.0.1:3000', signingSecret: 's'.repeat(32) }),
  });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A source that yields `bytes` in chunks of `chunk` bytes, generated lazily. */
function chunked(bytes: Buffer, chunk = 1024): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += chunk)
        yield bytes.subarray(offset, offset + chunk);
    })(),
  );
}

const tempFiles = async (): Promise<string[]> => readdir(join(root, '.tmp')).catch(() => []);

/** Polls the store's temporary folder (never a fixed sleep) until its one file holds `bytes` bytes. */
async function tempFileHolding(bytes: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const files = await tempFiles();
    const size =
      files.length === 1 ? (await stat(join(root, '.tmp', files[0]!)).catch(() => null))?.size : undefined;
    if (size === bytes) return;
    if (Date.now() > deadline) throw new Error(`no temporary file of ${bytes} bytes (found ${files.length})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('FsBlobStore', () => {
  it('stores a streamed upload under the key; stat, readHead and checksum read it back', async () => {
    await expect(store.write(KEY, chunked(PDF, 100), { maxBytes: PDF.length })).resolves.toEqual({
      sizeBytes: PDF.length,
    });
    expect(await readFile(join(root, 'sandbox', 'org_1', 'files', 'file_1'))).toEqual(PDF);
    await expect(store.stat(KEY)).resolves.toEqual({ sizeBytes: PDF.length });
    await expect(store.readHead(KEY, 8)).resolves.toEqual(new Uint8Array(PDF.subarray(0, 8)));
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(PDF));
    expect(await tempFiles()).toEqual([]);
  });

  it('returns the whole object from readHead when it is shorter than asked, and nothing for 0 bytes', async () => {
    await store.write(KEY, Readable.from([Buffer.from('%PDF')]), { maxBytes: 10 });
    await expect(store.readHead(KEY, 8)).resolves.toEqual(new Uint8Array(Buffer.from('%PDF')));
    await expect(store.readHead(KEY, 0)).resolves.toEqual(new Uint8Array(0));
  });

  it('hashes a multi-megabyte object by streaming it', async () => {
    const big = randomBytes(6 * 1024 * 1024 + 17);
    await store.write(KEY, chunked(big, 64 * 1024), { maxBytes: big.length });
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(big));
    await expect(store.stat(KEY)).resolves.toEqual({ sizeBytes: big.length });
  });

  it('accepts exactly maxBytes and aborts at maxBytes + 1, leaving nothing behind', async () => {
    await expect(store.write(KEY, chunked(PDF.subarray(0, 100), 7), { maxBytes: 100 })).resolves.toEqual({
      sizeBytes: 100,
    });
    await store.delete(KEY);
    await expect(
      store.write(KEY, chunked(PDF.subarray(0, 101), 7), { maxBytes: 100 }),
    ).rejects.toBeInstanceOf(BlobTooLargeError);
    await expect(store.stat(KEY)).resolves.toBeNull();
    expect(await tempFiles()).toEqual([]);
  });

  it('stops reading an oversize source without consuming the rest of it or destroying it', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 1024;
        this.push(Buffer.alloc(1024, 1));
      },
    });
    await expect(store.write(KEY, endless, { maxBytes: 10 * 1024 })).rejects.toBeInstanceOf(
      BlobTooLargeError,
    );
    const producedAtAbort = produced;
    await new Promise((resolve) => setTimeout(resolve, 50));
    // At most the stream's read-ahead buffer beyond the limit, and nothing more once aborted.
    expect(producedAtAbort).toBeLessThan(10 * 1024 + 64 * 1024);
    expect(produced).toBe(producedAtAbort);
    expect(endless.destroyed).toBe(false);
    expect(await tempFiles()).toEqual([]);
    endless.destroy();
  });

  it('keeps the previous object intact when a replacing upload is too large or interrupted', async () => {
    await store.write(KEY, Readable.from([PDF]), { maxBytes: PDF.length });
    await expect(
      store.write(KEY, chunked(randomBytes(PDF.length + 1)), { maxBytes: PDF.length }),
    ).rejects.toThrow(BlobTooLargeError);
    const failing = Readable.from(
      (async function* () {
        yield Buffer.from('%PNG partial');
        throw new Error('socket reset');
      })(),
    );
    await expect(store.write(KEY, failing, { maxBytes: PDF.length })).rejects.toBeInstanceOf(
      BlobUploadInterruptedError,
    );
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(PDF));
    expect(await tempFiles()).toEqual([]);
  });

  it('treats a source closed before its end as interrupted', async () => {
    const source = new PassThrough();
    const writing = store.write(KEY, source, { maxBytes: 1000 });
    const partial = Buffer.from('%PDF-1.7 partial');
    source.write(partial);
    await tempFileHolding(partial.length);
    source.destroy();
    await expect(writing).rejects.toBeInstanceOf(BlobUploadInterruptedError);
    await expect(store.stat(KEY)).resolves.toBeNull();
    expect(await tempFiles()).toEqual([]);
  });

  it('never shows a partial upload: the key stays empty until the last byte arrived', async () => {
    const source = new PassThrough();
    const writing = store.write(KEY, source, { maxBytes: PDF.length });
    source.write(PDF.subarray(0, 1000));
    await tempFileHolding(1000);
    await expect(store.stat(KEY)).resolves.toBeNull();
    source.end(PDF.subarray(1000));
    await writing;
    await expect(store.stat(KEY)).resolves.toEqual({ sizeBytes: PDF.length });
  });

  it('accepts a legacy (non-Readable) stream', async () => {
    const legacy = new PassThrough();
    const wrapped: NodeJS.ReadableStream = {
      readable: true,
      read: legacy.read.bind(legacy),
      setEncoding: () => wrapped,
      pause: () => (legacy.pause(), wrapped),
      resume: () => (legacy.resume(), wrapped),
      isPaused: () => legacy.isPaused(),
      pipe: legacy.pipe.bind(legacy),
      unpipe: () => wrapped,
      unshift: () => undefined,
      wrap: () => wrapped,
      on: (event: string, listener: (...args: unknown[]) => void) => (legacy.on(event, listener), wrapped),
    } as unknown as NodeJS.ReadableStream;
    const writing = store.write(KEY, wrapped, { maxBytes: 100 });
    legacy.end(Buffer.from('%PDF-legacy'));
    await expect(writing).resolves.toEqual({ sizeBytes: 11 });
  });

  it('answers null from stat and throws BlobNotFoundError from readHead/checksum when nothing is stored', async () => {
    await expect(store.stat(KEY)).resolves.toBeNull();
    await expect(store.readHead(KEY, 8)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.checksumSha256(KEY)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.openRead(KEY)).resolves.toBeNull();
    // A folder at the key is not an object either.
    await expect(store.stat('sandbox/org_1')).resolves.toBeNull();
  });

  it('promotes a copy that a later write to the source does not change', async () => {
    const CONTENT = 'sandbox/org_1/content/file_1/sha256-abc';
    await store.write(KEY, chunked(PDF, 500), { maxBytes: PDF.length });
    await store.promote(KEY, CONTENT);
    const other = randomBytes(PDF.length);
    await store.write(KEY, Readable.from([other]), { maxBytes: other.length });

    await expect(store.checksumSha256(CONTENT)).resolves.toBe(sha256(PDF));
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(other));
    expect(await tempFiles()).toEqual([]);

    // Promoting again replaces the destination whole.
    await store.promote(KEY, CONTENT);
    await expect(store.checksumSha256(CONTENT)).resolves.toBe(sha256(other));
  });

  it('throws BlobNotFoundError when promoting a missing object, leaving the destination untouched', async () => {
    const CONTENT = 'sandbox/org_1/content/file_1/sha256-abc';
    await store.write(CONTENT, Readable.from([PDF]), { maxBytes: PDF.length });
    await expect(store.promote(KEY, CONTENT)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.checksumSha256(CONTENT)).resolves.toBe(sha256(PDF));
    expect(await tempFiles()).toEqual([]);
  });

  it('puts bytes the service produced whole, answering their size and SHA-256', async () => {
    await store.write(KEY, Readable.from([randomBytes(10)]), { maxBytes: 10 });
    await expect(store.put(KEY, PDF)).resolves.toEqual({
      sizeBytes: PDF.length,
      checksumSha256: sha256(PDF),
    });
    expect(await readFile(join(root, 'sandbox', 'org_1', 'files', 'file_1'))).toEqual(PDF);
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(PDF));
    expect(await tempFiles()).toEqual([]);
  });

  it('deletes idempotently', async () => {
    await store.write(KEY, Readable.from([PDF]), { maxBytes: PDF.length });
    await store.delete(KEY);
    await expect(store.stat(KEY)).resolves.toBeNull();
    await expect(store.delete(KEY)).resolves.toBeUndefined();
  });

  it.each(['../escape', 'a/../../b', '/absolute', 'a//b', '.tmp/x', 'a/./b', 'a\\b', 'a b', ''])(
    'refuses the unsafe key %j everywhere',
    async (key) => {
      await expect(store.stat(key)).rejects.toThrow(/invalid blob key/);
      await expect(store.write(key, Readable.from([PDF]), { maxBytes: PDF.length })).rejects.toThrow(
        /invalid blob key/,
      );
      await expect(
        store.createUploadTarget(key, {
          contentType: 'application/pdf',
          sizeBytes: 1,
          expiresAt: new Date(),
        }),
      ).rejects.toThrow(/invalid blob key/);
    },
  );

  it('signs upload targets only for sizes from 1 byte to the maximum', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const target = await store.createUploadTarget(KEY, {
      contentType: 'application/pdf',
      sizeBytes: 10,
      expiresAt,
    });
    expect(target.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/blobs\/upload\/[A-Za-z0-9_.-]+$/);
    for (const sizeBytes of [0, -1, 1.5, 25 * 1024 * 1024 + 1]) {
      await expect(
        store.createUploadTarget(KEY, { contentType: 'application/pdf', sizeBytes, expiresAt }),
      ).rejects.toThrow(/upload size/);
    }
    await expect(store.createDownloadUrl(KEY, expiresAt)).resolves.toMatch(/\/blobs\/download\//);
  });

  it('removes stale temp files left by a crash, keeping recent ones', async () => {
    await mkdir(join(root, '.tmp'), { recursive: true });
    await writeFile(join(root, '.tmp', 'old.part'), 'x');
    await writeFile(join(root, '.tmp', 'new.part'), 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(join(root, '.tmp', 'old.part'), twoHoursAgo, twoHoursAgo);
    await expect(store.removeStaleTempFiles()).resolves.toBe(1);
    expect(await tempFiles()).toEqual(['new.part']);
    expect(existsSync(join(root, '.tmp', 'old.part'))).toBe(false);
  });
});
