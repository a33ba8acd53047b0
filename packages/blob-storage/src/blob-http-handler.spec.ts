import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobHttpHandler } from './blob-http-handler';
import { FsBlobStore } from './fs-blob-store';
import { SignedBlobUrls } from './signed-blob-urls';

const KEY = 'sandbox/org_1/files/file_1';
const SECRET = 'k'.repeat(32);
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(5000)]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(100)]);
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

let root: string;
let now: Date;
let urls: SignedBlobUrls;
let store: FsBlobStore;
let handler: BlobHttpHandler;

/** Changes one character of the signature (not the last, whose low bits are base64 padding). */
const flipped = (token: string): string => {
  const at = token.indexOf('.') + 3;
  return token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
};

const tokenOf = (url: string): string => decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));

async function uploadToken(
  sizeBytes = PDF.length,
  contentType = 'application/pdf',
  key = KEY,
): Promise<string> {
  const expiresAt = new Date(now.getTime() + 15 * 60 * 1000);
  return tokenOf((await store.createUploadTarget(key, { contentType, sizeBytes, expiresAt })).url);
}

async function downloadToken(key = KEY): Promise<string> {
  return tokenOf(await store.createDownloadUrl(key, new Date(now.getTime() + 5 * 60 * 1000)));
}

const pdfHeaders = (length?: number) => ({
  'content-type': 'application/pdf',
  ...(length !== undefined ? { 'content-length': String(length) } : {}),
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'blob-http-'));
  now = new Date();
  urls = new SignedBlobUrls({ publicBaseUrl: 'http://127.0.0.1:1', signingSecret: SECRET, now: () => now });
  store = new FsBlobStore({ root, urls });
  handler = new BlobHttpHandler(store, urls);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('BlobHttpHandler.handleUpload', () => {
  it('stores the bytes and answers 200 with the size', async () => {
    const result = await handler.handleUpload(
      await uploadToken(),
      Readable.from([PDF.subarray(0, 10), PDF.subarray(10)]),
      pdfHeaders(PDF.length),
    );
    expect(result).toEqual({
      ok: true,
      status: 200,
      headers: { 'cache-control': 'no-store' },
      body: { sizeBytes: PDF.length },
    });
    await expect(store.checksumSha256(KEY)).resolves.toBe(sha256(PDF));
  });

  it('accepts a Content-Type with parameters or other casing, and a chunked body without Content-Length', async () => {
    const result = await handler.handleUpload(await uploadToken(), Readable.from([PDF]), {
      'content-type': 'Application/PDF; charset=binary',
    });
    expect(result.status).toBe(200);
  });

  it('stores fewer bytes than declared (completion reports it), but never more', async () => {
    const result = await handler.handleUpload(
      await uploadToken(),
      Readable.from([PDF.subarray(0, 100)]),
      pdfHeaders(),
    );
    expect(result.status).toBe(200);
    await expect(store.stat(KEY)).resolves.toEqual({ sizeBytes: 100 });
  });

  it('answers 413 before reading when Content-Length exceeds the declared size', async () => {
    const untouched = new Readable({
      read() {
        throw new Error('must not be read');
      },
    });
    const result = await handler.handleUpload(await uploadToken(100), untouched, pdfHeaders(101));
    expect(result).toMatchObject({
      ok: false,
      status: 413,
      headers: { connection: 'close' },
      error: { code: 'upload_too_large', details: { maxBytes: 100 } },
    });
    expect(untouched.readableDidRead).toBe(false);
    await expect(store.stat(KEY)).resolves.toBeNull();
  });

  it('answers 413 and keeps nothing when more bytes arrive than declared, whatever Content-Length said', async () => {
    const result = await handler.handleUpload(
      await uploadToken(PDF.length - 1),
      Readable.from([PDF.subarray(0, 1000), PDF.subarray(1000)]),
      pdfHeaders(PDF.length - 1),
    );
    expect(result).toMatchObject({ ok: false, status: 413, error: { code: 'upload_too_large' } });
    await expect(store.stat(KEY)).resolves.toBeNull();
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
  });

  it('answers 415 when the Content-Type is not the declared one, or missing', async () => {
    for (const headers of [{ 'content-type': 'image/png' }, {}]) {
      const result = await handler.handleUpload(await uploadToken(), Readable.from([PDF]), headers);
      expect(result).toMatchObject({
        ok: false,
        status: 415,
        error: { code: 'upload_content_type_mismatch', details: { expectedContentType: 'application/pdf' } },
      });
    }
    await expect(store.stat(KEY)).resolves.toBeNull();
  });

  it('answers 400 upload_interrupted when the body fails midway, keeping nothing', async () => {
    const failing = Readable.from(
      (async function* () {
        yield PDF.subarray(0, 100);
        throw new Error('ECONNRESET');
      })(),
    );
    const result = await handler.handleUpload(await uploadToken(), failing, pdfHeaders(PDF.length));
    expect(result).toMatchObject({ ok: false, status: 400, error: { code: 'upload_interrupted' } });
    await expect(store.stat(KEY)).resolves.toBeNull();
  });

  it('refuses a tampered, expired or download token with 403 and a typed reason', async () => {
    const token = await uploadToken();
    const [body, mac] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    const tampered = `${Buffer.from(JSON.stringify({ ...claims, key: 'sandbox/org_2/files/file_9' })).toString('base64url')}.${mac}`;

    const cases: Array<[string, string, string]> = [
      [tampered, 'upload_url_invalid', 'invalid_signature'],
      ['garbage', 'upload_url_invalid', 'malformed'],
      [await downloadToken(), 'upload_url_invalid', 'wrong_operation'],
    ];
    for (const [candidate, code, reason] of cases) {
      const result = await handler.handleUpload(candidate, Readable.from([PDF]), pdfHeaders(PDF.length));
      expect(result).toMatchObject({ ok: false, status: 403, error: { code, details: { reason } } });
    }
    now = new Date(now.getTime() + 15 * 60 * 1000);
    const expired = await handler.handleUpload(token, Readable.from([PDF]), pdfHeaders(PDF.length));
    expect(expired).toMatchObject({
      ok: false,
      status: 403,
      error: { code: 'upload_url_expired', details: { reason: 'expired' } },
    });
    await expect(store.stat(KEY)).resolves.toBeNull();
    await expect(store.stat('sandbox/org_2/files/file_9')).resolves.toBeNull();
  });
});

describe('BlobHttpHandler.handleDownload', () => {
  it('streams the object with its sniffed type, length and no-cache attachment headers', async () => {
    await store.write(KEY, Readable.from([PNG]), { maxBytes: PNG.length });
    const result = await handler.handleDownload(await downloadToken());
    if (!result.ok) throw new Error(`expected a download, got ${result.status}`);
    expect(result.headers).toEqual({
      'content-type': 'image/png',
      'content-length': String(PNG.length),
      'content-disposition': 'attachment',
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    });
    expect(await readAll(result.stream)).toEqual(PNG);
  });

  it('serves unrecognised bytes as application/octet-stream', async () => {
    await store.write(KEY, Readable.from([Buffer.from('<html>')]), { maxBytes: 6 });
    const result = await handler.handleDownload(await downloadToken());
    expect(result.ok && result.headers['content-type']).toBe('application/octet-stream');
    if (result.ok) result.stream.destroy();
  });

  it('answers 404 when nothing is stored', async () => {
    await expect(handler.handleDownload(await downloadToken())).resolves.toMatchObject({
      ok: false,
      status: 404,
      error: { code: 'download_not_found' },
    });
  });

  it('refuses an upload token, an expired token and a tampered token with 403', async () => {
    await store.write(KEY, Readable.from([PDF]), { maxBytes: PDF.length });
    await expect(handler.handleDownload(await uploadToken())).resolves.toMatchObject({
      status: 403,
      error: { code: 'download_url_invalid', details: { reason: 'wrong_operation' } },
    });
    const token = await downloadToken();
    await expect(handler.handleDownload(flipped(token))).resolves.toMatchObject({
      status: 403,
      error: { code: 'download_url_invalid' },
    });
    now = new Date(now.getTime() + 5 * 60 * 1000 + 1);
    await expect(handler.handleDownload(token)).resolves.toMatchObject({
      status: 403,
      error: { code: 'download_url_expired', details: { reason: 'expired' } },
    });
  });
});

/**
 * The same handler behind a bare node:http server, as the API mounts it behind Express: real sockets, real
 * request streams, `fetch` as the client.
 */
describe('BlobHttpHandler over real HTTP', () => {
  let server: Server;
  let base: string;

  beforeEach(async () => {
    server = createServer((req, res) => {
      const route = /^\/blobs\/(upload|download)\/([^/?]+)$/.exec(req.url ?? '');
      void (async () => {
        const token = decodeURIComponent(route?.[2] ?? '');
        if (route?.[1] === 'upload' && req.method === 'PUT') {
          const result = await handler.handleUpload(token, req, req.headers);
          res.writeHead(result.status, { ...result.headers, 'content-type': 'application/json' });
          res.end(JSON.stringify(result.ok ? result.body : { error: result.error }));
        } else if (route?.[1] === 'download' && req.method === 'GET') {
          const result = await handler.handleDownload(token);
          if (!result.ok) {
            res.writeHead(result.status, { ...result.headers, 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: result.error }));
            return;
          }
          res.writeHead(result.status, result.headers);
          await pipeline(result.stream, res);
        } else {
          res.writeHead(404).end();
        }
      })().catch((error: unknown) => {
        // Once headers are out (a download cut short by the client), there is nothing left to answer.
        if (res.headersSent) res.destroy();
        else res.writeHead(500).end(String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('uploads with PUT, then downloads the same bytes with GET', async () => {
    const put = await fetch(`${base}/blobs/upload/${await uploadToken()}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: PDF,
    });
    expect(put.status).toBe(200);
    await expect(put.json()).resolves.toEqual({ sizeBytes: PDF.length });

    const get = await fetch(`${base}/blobs/download/${await downloadToken()}`);
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await get.arrayBuffer())).toEqual(PDF);
  });

  it('answers 413 to a streamed (chunked) body that grows past the declared size, storing nothing', async () => {
    const chunks = [PDF.subarray(0, 3000), PDF.subarray(3000)];
    const put = await fetch(`${base}/blobs/upload/${await uploadToken(4000)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: Readable.toWeb(Readable.from(chunks)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    expect(put.status).toBe(413);
    await expect(put.json()).resolves.toMatchObject({ error: { code: 'upload_too_large' } });
    await expect(store.stat(KEY)).resolves.toBeNull();
  });

  it('answers 413 at once to a declared Content-Length over the limit', async () => {
    const put = await fetch(`${base}/blobs/upload/${await uploadToken(100)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: PDF,
    });
    expect(put.status).toBe(413);
    await expect(store.stat(KEY)).resolves.toBeNull();
  });

  it('answers 403 to a tampered URL', async () => {
    const token = await uploadToken();
    const put = await fetch(`${base}/blobs/upload/${flipped(token)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: PDF,
    });
    expect(put.status).toBe(403);
    await expect(put.json()).resolves.toMatchObject({ error: { code: 'upload_url_invalid' } });
  });
});
