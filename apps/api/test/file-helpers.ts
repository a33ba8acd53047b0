import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { Express } from 'express';
import request from 'supertest';

/** A minimal well-formed one-page PDF 1.4 (header, catalog, pages, page, xref with exact offsets, trailer). */
function minimalPdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(body);
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A minimal valid PNG: the 8-byte signature, IHDR (1×1, 8-bit greyscale), one IDAT and IEND. */
function minimalPng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0); // width
  ihdr.writeUInt32BE(1, 4); // height
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(0, 9); // colour type: greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.from([0x00, 0xff]))), // filter byte 0, one white pixel
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export const PDF_BYTES = minimalPdf();
export const PNG_BYTES = minimalPng();

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export const FILES = '/v1/files';

/** The path and query of a URL the API returned, to send it to the app under test with supertest. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** Collects a binary response body (supertest only buffers text and JSON by itself). */
const binary = (res: unknown, done: (error: Error | null, body: Buffer) => void): void => {
  const stream = res as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
  stream.on('error', (error: Error) => done(error, Buffer.alloc(0)));
};

export const pdfFile = (overrides: Record<string, unknown> = {}) => ({
  fileName: 'sleep-study.pdf',
  contentType: 'application/pdf',
  sizeBytes: PDF_BYTES.length,
  purpose: 'authorization_attachment',
  ...overrides,
});

/** supertest calls of the files endpoints with one API key, and of the blob routes with none. */
export function fileClient(app: Express, apiKey: string) {
  const auth = { Authorization: `Bearer ${apiKey}` };
  return {
    create: (body: unknown, key: string | null = null) => {
      const req = request(app).post(FILES).set(auth);
      if (key !== null) req.set('Idempotency-Key', key);
      return req.send(body as object);
    },
    complete: (fileId: string, key: string | null = null) => {
      const req = request(app).post(`${FILES}/${fileId}/complete`).set(auth);
      if (key !== null) req.set('Idempotency-Key', key);
      return req;
    },
    get: (fileId: string) => request(app).get(`${FILES}/${fileId}`).set(auth),
    list: (query = '') => request(app).get(`${FILES}${query}`).set(auth),
    /** Step 2: the raw bytes to the upload URL, with no API key. */
    put: (uploadUrl: string, bytes: Buffer, contentType: string) =>
      request(app).put(pathOf(uploadUrl)).set('Content-Type', contentType).send(bytes),
    download: (downloadUrl: string) => request(app).get(pathOf(downloadUrl)).buffer(true).parse(binary),
  };
}

export type FileClient = ReturnType<typeof fileClient>;

/**
 * The upload flow through the API: create, PUT the bytes, and (unless `ready: false`) complete. Returns the
 * file as the last call answered it.
 */
export async function uploadFile(
  app: Express,
  apiKey: string,
  options: { ready?: boolean; fileName?: string; bytes?: Buffer; contentType?: string } = {},
) {
  const files = fileClient(app, apiKey);
  const bytes = options.bytes ?? PDF_BYTES;
  const contentType = options.contentType ?? 'application/pdf';
  const created = await files
    .create(
      pdfFile({ fileName: options.fileName ?? 'sleep-study.pdf', contentType, sizeBytes: bytes.length }),
    )
    .expect(201);
  if (options.ready === false) return created.body;
  await files.put(created.body.uploadUrl, bytes, contentType).expect(200);
  return (await files.complete(created.body.id).expect(200)).body;
}
