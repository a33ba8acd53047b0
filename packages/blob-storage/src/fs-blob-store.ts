import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { finished, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type BlobStore, MAX_FILE_SIZE_BYTES } from '@prior-auth/domain';
import { assertUploadSize, assertValidBlobKey } from './blob-key';
import { BlobNotFoundError, BlobTooLargeError, BlobUploadInterruptedError } from './errors';
import { type SignedBlobUrls } from './signed-blob-urls';

export interface FsBlobStoreOptions {
  /** Folder holding the blobs, e.g. `<data dir>/blobs`; created on first write. */
  root: string;
  urls: SignedBlobUrls;
  /** Largest upload the store signs a URL for; defaults to the domain's MAX_FILE_SIZE_BYTES. */
  maxObjectBytes?: number;
}

/** An open stored object: its size, its first 16 bytes and a stream of all of it (which owns the file handle). */
export interface FsBlobReader {
  sizeBytes: number;
  head: Uint8Array;
  stream: Readable;
}

const TEMP_DIR = '.tmp';
const NOT_FOUND = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

/**
 * The embedded default BlobStore: one file per key under `root`. Bytes only ever stream (never a whole file
 * in memory); an upload is written to `root/.tmp` and renamed into place once complete, so readers see either
 * the previous object or the whole new one, never a partial upload. Keys cannot start with `.`, so the temp
 * folder never collides with a key.
 */
export class FsBlobStore implements BlobStore {
  readonly root: string;
  private readonly urls: SignedBlobUrls;
  private readonly maxObjectBytes: number;

  constructor(options: FsBlobStoreOptions) {
    this.root = resolve(options.root);
    this.urls = options.urls;
    this.maxObjectBytes = options.maxObjectBytes ?? MAX_FILE_SIZE_BYTES;
  }

  async createUploadTarget(
    key: string,
    options: { contentType: string; sizeBytes: number; expiresAt: Date },
  ): Promise<{ url: string }> {
    assertValidBlobKey(key);
    assertUploadSize(options.sizeBytes, this.maxObjectBytes);
    return {
      url: this.urls.uploadUrl(key, {
        contentType: options.contentType,
        maxBytes: options.sizeBytes,
        expiresAt: options.expiresAt,
      }),
    };
  }

  async createDownloadUrl(key: string, expiresAt: Date): Promise<string> {
    assertValidBlobKey(key);
    return this.urls.downloadUrl(key, expiresAt);
  }

  async stat(key: string): Promise<{ sizeBytes: number } | null> {
    try {
      const stats = await stat(this.pathOf(key));
      return stats.isFile() ? { sizeBytes: stats.size } : null;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async readHead(key: string, bytes: number): Promise<Uint8Array> {
    const handle = await this.openHandle(key);
    try {
      return await readHeadOf(handle, bytes);
    } finally {
      await handle.close();
    }
  }

  async checksumSha256(key: string): Promise<string> {
    const handle = await this.openHandle(key);
    const hash = createHash('sha256');
    // The stream owns the handle from here and closes it when done or destroyed.
    await pipeline(handle.createReadStream({ start: 0 }), hash);
    return hash.digest('hex');
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /** Bytes the service produced (payer evidence), written like an upload: whole or not at all. */
  async put(key: string, bytes: Uint8Array): Promise<{ sizeBytes: number; checksumSha256: string }> {
    const { sizeBytes } = await this.write(key, Readable.from([Buffer.from(bytes)]), {
      maxBytes: bytes.length,
    });
    return { sizeBytes, checksumSha256: createHash('sha256').update(bytes).digest('hex') };
  }

  /**
   * Copies `fromKey` to `toKey` like an upload: streamed into `root/.tmp`, then renamed over the destination,
   * so readers of `toKey` see the previous object or the whole copy, and later writes to `fromKey` (a still
   * valid upload URL) never reach it. Throws BlobNotFoundError when nothing is stored under `fromKey`.
   */
  async promote(fromKey: string, toKey: string): Promise<void> {
    const target = this.pathOf(toKey);
    const handle = await this.openHandle(fromKey);
    const tempDir = join(this.root, TEMP_DIR);
    const temp = join(tempDir, `${randomUUID()}.part`);
    try {
      await mkdir(tempDir, { recursive: true });
      await mkdir(dirname(target), { recursive: true });
    } catch (error) {
      await handle.close();
      throw error;
    }
    try {
      // The read stream owns the handle from here and closes it when done or destroyed.
      await pipeline(
        handle.createReadStream({ start: 0 }),
        createWriteStream(temp, { flags: 'wx', flush: true }),
      );
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /**
   * Streams `source` into `key`, replacing any previous object atomically once every byte arrived. Throws
   * BlobTooLargeError as soon as more than `maxBytes` arrive (the source is then left unread, not destroyed,
   * so an HTTP layer can still answer), BlobUploadInterruptedError when the source fails or ends early. On
   * any failure nothing is left behind and the previous object, if any, is untouched.
   */
  async write(
    key: string,
    source: NodeJS.ReadableStream,
    options: { maxBytes: number },
  ): Promise<{ sizeBytes: number }> {
    const target = this.pathOf(key);
    const tempDir = join(this.root, TEMP_DIR);
    await mkdir(tempDir, { recursive: true });
    await mkdir(dirname(target), { recursive: true });
    const temp = join(tempDir, `${randomUUID()}.part`);

    const readable = source instanceof Readable ? source : new Readable().wrap(source);
    let received = 0;
    const limiter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        if (received > options.maxBytes) callback(new BlobTooLargeError(options.maxBytes));
        else callback(null, chunk);
      },
    });
    // `pipe` (not `pipeline`) from the source: on overflow the source is unpiped but not destroyed.
    const stopWatching = finished(readable, { writable: false }, (error) => {
      if (error) limiter.destroy(new BlobUploadInterruptedError(error));
    });
    readable.pipe(limiter);
    const sink = createWriteStream(temp, { flags: 'wx', flush: true });
    try {
      await pipeline(limiter, sink);
      await rename(temp, target);
      return { sizeBytes: received };
    } catch (error) {
      readable.unpipe(limiter);
      // The sink may still be opening its file when the pipeline fails: wait until it has closed, or the
      // file would appear after we removed it.
      if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
      await rm(temp, { force: true });
      if (error instanceof BlobTooLargeError || error instanceof BlobUploadInterruptedError) throw error;
      if (isStreamError(error)) throw new BlobUploadInterruptedError(error);
      throw error;
    } finally {
      stopWatching();
    }
  }

  /** Opens the object for a download; null when nothing is stored under the key. */
  async openRead(key: string): Promise<FsBlobReader | null> {
    let handle: FileHandle;
    try {
      handle = await this.openHandle(key);
    } catch (error) {
      if (error instanceof BlobNotFoundError) return null;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      const head = await readHeadOf(handle, 16);
      return { sizeBytes: size, head, stream: handle.createReadStream({ start: 0 }) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Removes temp files left by a crash mid-upload; safe to call at start-up. Returns how many were removed. */
  async removeStaleTempFiles(olderThanMs = 60 * 60 * 1000, now: Date = new Date()): Promise<number> {
    const tempDir = join(this.root, TEMP_DIR);
    let names: string[];
    try {
      names = await readdir(tempDir);
    } catch (error) {
      if (isNotFound(error)) return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const path = join(tempDir, name);
      const stats = await stat(path).catch(() => null);
      if (stats !== null && now.getTime() - stats.mtimeMs > olderThanMs) {
        await rm(path, { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  private pathOf(key: string): string {
    assertValidBlobKey(key);
    const path = join(this.root, ...key.split('/'));
    if (!path.startsWith(this.root + sep)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
    return path;
  }

  private async openHandle(key: string): Promise<FileHandle> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(key);
      throw error;
    }
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      throw new BlobNotFoundError(key);
    }
    return handle;
  }
}

async function readHeadOf(handle: FileHandle, bytes: number): Promise<Uint8Array> {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new Error(`cannot read ${bytes} bytes`);
  const wanted = Math.min(bytes, (await handle.stat()).size);
  const buffer = new Uint8Array(wanted);
  let filled = 0;
  while (filled < wanted) {
    const { bytesRead } = await handle.read(buffer, filled, wanted - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === wanted ? buffer : buffer.slice(0, filled);
}

function isNotFound(error: unknown): boolean {
  return NOT_FOUND.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

function isStreamError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  return code.startsWith('ERR_STREAM_') || code === 'ECONNRESET' || code === 'EPIPE';
}
