import { readdir } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { FsBlobStore } from '@prior-auth/blob-storage';
import type { Express } from 'express';
import request from 'supertest';
import {
  client,
  COMPLETE_CPAP_ANSWERS,
  countRows,
  createBody,
  newKey,
  type Client,
} from './authorization-helpers';
import {
  FILES,
  fileClient,
  pathOf,
  PDF_BYTES,
  pdfFile,
  PNG_BYTES,
  sha256,
  uploadFile,
  type FileClient,
} from './file-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FILE_FIELDS = [
  'id',
  'status',
  'fileName',
  'contentType',
  'purpose',
  'sizeBytes',
  'checksumSha256',
  'createdAt',
  'completedAt',
  'uploadUrl',
  'uploadExpiresAt',
  'downloadUrl',
].sort();

/** Sends a PUT over a real socket, chunk by chunk, with exactly the headers given (none added). */
async function rawPut(
  app: Express,
  path: string,
  headers: Record<string, string>,
  chunks: Buffer[],
): Promise<{ status: number; body: Record<string, unknown> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path, method: 'PUT', headers },
        (res: IncomingMessage) => {
          const received: Buffer[] = [];
          res.on('data', (chunk: Buffer) => received.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(received).toString('utf8')),
            }),
          );
        },
      );
      req.on('error', reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('files (filesystem blob store)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let c: Client;
  let files: FileClient;
  /** How far the blob routes' clock runs ahead of real time (to see signed URLs expire). */
  let blobClockSkewMs = 0;

  beforeAll(async () => {
    t = await createTestApp({ blobNow: () => new Date(Date.now() + blobClockSkewMs) });
    tenant = await t.createTenant();
    c = client(t.app, tenant.keys.sandbox);
    files = fileClient(t.app, tenant.keys.sandbox);
  });
  afterEach(() => {
    blobClockSkewMs = 0;
  });
  afterAll(() => t.close());

  const storageKey = (fileId: string, owner: TestTenant = tenant) =>
    `sandbox/${owner.organizationId}/files/${fileId}`;

  /** The file is still waiting for its bytes and nothing is stored under its key. */
  async function expectUntouched(fileId: string): Promise<void> {
    expect((await files.get(fileId).expect(200)).body.status).toBe('pending_upload');
    await expect(t.blobStorage.store.stat(storageKey(fileId))).resolves.toBeNull();
  }

  describe('the upload flow', () => {
    it('create → PUT bytes → complete → attach (last blocker → advance_case) → download the same bytes', async () => {
      const authorization = (
        await c
          .create(createBody(tenant, { questionnaireResponse: { item: COMPLETE_CPAP_ANSWERS } }))
          .expect(201)
      ).body;
      expect(authorization.requirements.documents.map((d: { type: string }) => d.type).sort()).toEqual([
        'clinical_notes',
        'sleep_study_report',
      ]);

      // 1. Create: 201, Location, pending with a signed upload URL valid 15 minutes.
      const created = await files.create(pdfFile()).expect(201);
      const file = created.body;
      expect(created.headers.location).toBe(`${FILES}/${file.id}`);
      expect(Object.keys(file).sort()).toEqual(FILE_FIELDS);
      expect(file).toEqual({
        id: expect.stringMatching(/^file_/),
        status: 'pending_upload',
        fileName: 'sleep-study.pdf',
        contentType: 'application/pdf',
        purpose: 'authorization_attachment',
        sizeBytes: PDF_BYTES.length,
        checksumSha256: null,
        createdAt: expect.stringMatching(ISO),
        completedAt: null,
        uploadUrl: expect.stringMatching(/^http:\/\/localhost:\d+\/blobs\/upload\/[\w-]+\.[\w-]+$/),
        uploadExpiresAt: expect.stringMatching(ISO),
        downloadUrl: null,
      });
      expect(Date.parse(file.uploadExpiresAt) - Date.parse(file.createdAt)).toBe(15 * 60_000);
      expect(file.uploadUrl).not.toContain(tenant.organizationId);

      // Not attachable yet.
      const early = await c
        .attach(authorization.id, '"1"', { fileId: file.id, documentTypes: ['sleep_study_report'] })
        .expect(409);
      expect(early.body.error.code).toBe('file_not_ready');

      // 2. PUT the raw bytes, no API key.
      const put = await files.put(file.uploadUrl, PDF_BYTES, 'application/pdf').expect(200);
      expect(put.body).toEqual({ sizeBytes: PDF_BYTES.length });
      // Bytes arrived but the file is not ready before complete.
      expect((await files.get(file.id).expect(200)).body).toMatchObject({
        status: 'pending_upload',
        downloadUrl: null,
      });

      // 3. Complete: ready, with the SHA-256 of the stored bytes.
      const completed = await files.complete(file.id).expect(200);
      expect(completed.body).toEqual({
        ...file,
        status: 'ready',
        checksumSha256: sha256(PDF_BYTES),
        completedAt: expect.stringMatching(ISO),
        uploadUrl: null,
      });

      // 4. Attach: one document blocker clears, the other remains.
      const first = await c
        .attach(authorization.id, '"1"', { fileId: file.id, documentTypes: ['sleep_study_report'] })
        .expect(200);
      expect(first.body).toMatchObject({
        version: 2,
        status: 'requires_input',
        requirements: { documents: [{ type: 'clinical_notes' }] },
        attachments: [{ fileId: file.id, label: 'sleep-study.pdf', documentTypes: ['sleep_study_report'] }],
      });

      // A PNG for the last blocker: the case moves to requires_confirmation with advance_case.
      const png = await uploadFile(t.app, tenant.keys.sandbox, {
        bytes: PNG_BYTES,
        contentType: 'image/png',
        fileName: 'notes.png',
      });
      expect(png).toMatchObject({
        status: 'ready',
        contentType: 'image/png',
        checksumSha256: sha256(PNG_BYTES),
      });
      const second = await c
        .attach(authorization.id, '"2"', { fileId: png.id, documentTypes: ['clinical_notes'] })
        .expect(200);
      expect(second.body).toMatchObject({
        version: 3,
        status: 'requires_confirmation',
        requirements: { questions: [], documents: [], issues: [] },
        nextAction: { type: 'advance_case', authorizationVersion: 3 },
      });
      expect(second.body.attachments.map((a: { fileId: string }) => a.fileId)).toEqual([file.id, png.id]);

      // GET: a short-lived download URL that serves exactly the uploaded bytes, with no API key.
      const read = await files.get(file.id).expect(200);
      expect(read.body).toEqual({
        ...completed.body,
        downloadUrl: expect.stringMatching(/^http:\/\/localhost:\d+\/blobs\/download\/[\w-]+\.[\w-]+$/),
      });
      const download = await files.download(read.body.downloadUrl).expect(200);
      expect(download.headers['content-type']).toBe('application/pdf');
      expect(download.headers['content-length']).toBe(String(PDF_BYTES.length));
      expect(download.headers['content-disposition']).toBe('attachment');
      expect(download.headers['cache-control']).toBe('private, no-store');
      expect(Buffer.compare(download.body as Buffer, PDF_BYTES)).toBe(0);
      const pngDownload = await files
        .download((await files.get(png.id).expect(200)).body.downloadUrl)
        .expect(200);
      expect(pngDownload.headers['content-type']).toBe('image/png');
      expect(Buffer.compare(pngDownload.body as Buffer, PNG_BYTES)).toBe(0);
    });

    it('lists the tenant’s files newest first with cursor pagination', async () => {
      const own = await t.createTenant();
      const mine = fileClient(t.app, own.keys.sandbox);
      const a = await uploadFile(t.app, own.keys.sandbox, { fileName: 'a.pdf' });
      const b = await uploadFile(t.app, own.keys.sandbox, { fileName: 'b.pdf', ready: false });
      const cFile = await uploadFile(t.app, own.keys.sandbox, { fileName: 'c.pdf' });
      await uploadFile(t.app, own.keys.production, { fileName: 'production.pdf' });

      const all = await mine.list().expect(200);
      expect(all.body.pagination).toEqual({ nextCursor: null });
      expect(all.body.data.map((f: { id: string }) => f.id)).toEqual([cFile.id, b.id, a.id]);
      for (const listed of all.body.data) {
        expect(Object.keys(listed).sort()).toEqual(FILE_FIELDS);
        expect(listed.uploadUrl).toBeNull();
        expect(listed.downloadUrl).toBeNull();
      }

      const page1 = await mine.list('?limit=2').expect(200);
      expect(page1.body.data.map((f: { id: string }) => f.id)).toEqual([cFile.id, b.id]);
      expect(page1.body.pagination.nextCursor).toEqual(expect.any(String));
      const page2 = await mine
        .list(`?limit=2&cursor=${encodeURIComponent(page1.body.pagination.nextCursor)}`)
        .expect(200);
      expect(page2.body).toEqual({
        data: [expect.objectContaining({ id: a.id })],
        pagination: { nextCursor: null },
      });

      // A cursor of another tenant, a tampered one, a bad limit → 422 at the query parameter.
      const foreign = await files
        .list(`?cursor=${encodeURIComponent(page1.body.pagination.nextCursor)}`)
        .expect(422);
      expect(foreign.body.error).toMatchObject({
        code: 'request_validation_failed',
        issues: [expect.objectContaining({ location: ['query', 'cursor'] })],
      });
      const tampered = await mine.list(`?cursor=${page1.body.pagination.nextCursor}x`).expect(422);
      expect(tampered.body.error.issues[0].location).toEqual(['query', 'cursor']);
      for (const limit of ['0', '101', 'x']) {
        const bad = await mine.list(`?limit=${limit}`).expect(422);
        expect(bad.body.error.issues[0].location).toEqual(['query', 'limit']);
      }
      const unknown = await mine.list('?status=ready').expect(422);
      expect(unknown.body.error.issues[0]).toMatchObject({
        location: ['query', 'status'],
        errorType: 'unknown_field',
      });
    });

    it('honours an Idempotency-Key on create and complete', async () => {
      const key = newKey();
      const first = await files.create(pdfFile({ fileName: 'once.pdf' }), key).expect(201);
      const replay = await files.create(pdfFile({ fileName: 'once.pdf' }), key).expect(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers.location).toBe(first.headers.location);
      expect(replay.body).toEqual(first.body);
      const reused = await files.create(pdfFile({ fileName: 'other.pdf' }), key).expect(409);
      expect(reused.body.error.code).toBe('idempotency_key_reused');

      await files.put(first.body.uploadUrl, PDF_BYTES, 'application/pdf').expect(200);
      const completeKey = newKey();
      const done = await files.complete(first.body.id, completeKey).expect(200);
      const again = await files.complete(first.body.id, completeKey).expect(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(done.body);
      // Without the key, a second completion is refused.
      expect((await files.complete(first.body.id).expect(409)).body.error.code).toBe(
        'file_already_completed',
      );

      const badKey = await files.create(pdfFile(), 'x'.repeat(256)).expect(422);
      expect(badKey.body.error.issues[0].location).toEqual(['headers', 'Idempotency-Key']);
    });

    it('requires an API key on /v1/files, none on the upload URL', async () => {
      await request(t.app).post(FILES).send(pdfFile()).expect(401);
      await request(t.app).get(FILES).expect(401);
      const created = await files.create(pdfFile()).expect(201);
      await request(t.app).get(`${FILES}/${created.body.id}`).expect(401);
      await request(t.app).post(`${FILES}/${created.body.id}/complete`).expect(401);
      // An API key on the upload is neither needed nor harmful.
      await request(t.app)
        .put(pathOf(created.body.uploadUrl))
        .set('Authorization', 'Bearer nonsense')
        .set('Content-Type', 'application/pdf')
        .send(PDF_BYTES)
        .expect(200);
      await request(t.app)
        .delete(`${FILES}/${created.body.id}`)
        .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
        .expect(405);
    });
  });

  describe('creating a file', () => {
    it('validates the JSON shape with 422 request_validation_failed, per field', async () => {
      const res = await files
        .create({ fileName: 7, contentType: 'application/pdf', sizeBytes: '10', extra: true })
        .expect(422);
      expect(res.body.error.code).toBe('request_validation_failed');
      expect(res.body.error.issues).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ location: ['body', 'fileName'], errorType: 'type_error' }),
          expect.objectContaining({ location: ['body', 'sizeBytes'], errorType: 'type_error' }),
          expect.objectContaining({ location: ['body', 'purpose'], errorType: 'missing' }),
          expect.objectContaining({ location: ['body', 'extra'], errorType: 'unknown_field' }),
        ]),
      );
      expect(res.body.error.issues).toHaveLength(4);
      const long = await files.create(pdfFile({ fileName: `${'a'.repeat(252)}.pdf` })).expect(422);
      expect(long.body.error.issues).toEqual([
        expect.objectContaining({ location: ['body', 'fileName'], errorType: 'too_long' }),
      ]);
      await files.create(undefined).expect(422);
      await files.create([pdfFile()]).expect(422);
      await request(t.app)
        .post(FILES)
        .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
        .set('Content-Type', 'application/pdf')
        .send(PDF_BYTES)
        .expect(400);
    });

    it.each([
      ['an unknown purpose', { purpose: 'profile_picture' }],
      ['a disallowed type', { contentType: 'application/zip' }],
      ['a type with parameters', { contentType: 'application/pdf; charset=binary' }],
      ['a size over 25 MiB', { sizeBytes: 25 * 1024 * 1024 + 1 }],
      ['a zero size', { sizeBytes: 0 }],
      ['a fractional size', { sizeBytes: 10.5 }],
      ['a blank name', { fileName: '  ' }],
    ])('refuses %s with 422 file_content_mismatch and stores nothing', async (_case, overrides) => {
      const own = await t.createTenant();
      const res = await fileClient(t.app, own.keys.sandbox).create(pdfFile(overrides), newKey()).expect(422);
      expect(res.body.error.code).toBe('file_content_mismatch');
      expect(await countRows(t.dataSource, 'files', own.organizationId)).toBe(0);
    });

    it('accepts exactly 25 MiB', async () => {
      const res = await files.create(pdfFile({ sizeBytes: 25 * 1024 * 1024 })).expect(201);
      expect(res.body.sizeBytes).toBe(25 * 1024 * 1024);
    });
  });

  describe('bad uploads leave the file pending and nothing half-done', () => {
    it('a size mismatch → 409 file_upload_incomplete; a corrected upload then completes', async () => {
      const file = (await files.create(pdfFile()).expect(201)).body;
      const nothing = await files.complete(file.id).expect(409);
      expect(nothing.body.error).toMatchObject({
        code: 'file_upload_incomplete',
        retryable: false,
        details: { fileId: file.id, declaredSizeBytes: PDF_BYTES.length, storedSizeBytes: null },
      });
      const short = PDF_BYTES.subarray(0, 100);
      await files.put(file.uploadUrl, short, 'application/pdf').expect(200);
      const mismatch = await files.complete(file.id).expect(409);
      expect(mismatch.body.error).toMatchObject({
        code: 'file_upload_incomplete',
        details: { declaredSizeBytes: PDF_BYTES.length, storedSizeBytes: 100 },
      });
      expect(mismatch.body.requestId).toBe(mismatch.headers['request-id']);
      expect((await files.get(file.id).expect(200)).body.status).toBe('pending_upload');

      await files.put(file.uploadUrl, PDF_BYTES, 'application/pdf').expect(200);
      const done = await files.complete(file.id).expect(200);
      expect(done.body).toMatchObject({ status: 'ready', checksumSha256: sha256(PDF_BYTES) });
    });

    it('a PNG declared as a PDF → 422 file_content_mismatch', async () => {
      const file = (await files.create(pdfFile({ sizeBytes: PNG_BYTES.length })).expect(201)).body;
      await files.put(file.uploadUrl, PNG_BYTES, 'application/pdf').expect(200);
      const res = await files.complete(file.id).expect(422);
      expect(res.body.error).toMatchObject({
        code: 'file_content_mismatch',
        details: { declaredContentType: 'application/pdf', detectedContentType: 'image/png' },
      });
      const read = await files.get(file.id).expect(200);
      expect(read.body).toMatchObject({ status: 'pending_upload', checksumSha256: null, completedAt: null });
    });

    it('bytes of no allowed type → 422 file_content_mismatch', async () => {
      const text = Buffer.from('just some text, not a document');
      const file = (await files.create(pdfFile({ sizeBytes: text.length })).expect(201)).body;
      await files.put(file.uploadUrl, text, 'application/pdf').expect(200);
      const res = await files.complete(file.id).expect(422);
      expect(res.body.error.details).toMatchObject({ detectedContentType: null });
    });

    it('another Content-Type than declared → 415 upload_content_type_mismatch at upload', async () => {
      const file = (await files.create(pdfFile()).expect(201)).body;
      const res = await files.put(file.uploadUrl, PDF_BYTES, 'application/octet-stream').expect(415);
      expect(res.body).toEqual({
        error: {
          code: 'upload_content_type_mismatch',
          message: expect.any(String),
          retryable: false,
          details: { expectedContentType: 'application/pdf', contentType: 'application/octet-stream' },
          issues: [],
        },
        requestId: res.headers['request-id'],
      });
      await expectUntouched(file.id);
    });

    it('more bytes than declared → 413 upload_too_large at upload, not at complete', async () => {
      const file = (await files.create(pdfFile({ sizeBytes: 100 })).expect(201)).body;
      // Announced by Content-Length: refused before a byte is read.
      const announced = await files.put(file.uploadUrl, PDF_BYTES, 'application/pdf').expect(413);
      expect(announced.body.error).toMatchObject({ code: 'upload_too_large', details: { maxBytes: 100 } });
      expect(announced.headers.connection).toBe('close');
      await expectUntouched(file.id);

      // Streamed without a length (chunked): refused as soon as byte 101 arrives.
      const streamed = await rawPut(t.app, pathOf(file.uploadUrl), { 'Content-Type': 'application/pdf' }, [
        PDF_BYTES.subarray(0, 60),
        PDF_BYTES.subarray(60, 120),
        PDF_BYTES.subarray(120),
      ]);
      expect(streamed.status).toBe(413);
      expect(streamed.body).toMatchObject({
        error: { code: 'upload_too_large' },
        requestId: expect.any(String),
      });
      await expectUntouched(file.id);
      expect((await files.complete(file.id).expect(409)).body.error.code).toBe('file_upload_incomplete');
    });

    it('a tampered or wrong-purpose URL → 403 upload_url_invalid / download_url_invalid', async () => {
      const file = (await files.create(pdfFile()).expect(201)).body;
      const url = new URL(file.uploadUrl);
      const token = url.pathname.split('/').pop()!;
      const [payload, signature] = token.split('.') as [string, string];
      // The first character: every bit of it counts (a last base64url character may carry padding bits).
      const flipped = (text: string) => `${text.startsWith('A') ? 'B' : 'A'}${text.slice(1)}`;
      for (const bad of [`${payload}.${flipped(signature)}`, `${flipped(payload)}.${signature}`, 'garbage']) {
        const res = await files
          .put(`${url.origin}/blobs/upload/${bad}`, PDF_BYTES, 'application/pdf')
          .expect(403);
        expect(res.body.error).toMatchObject({ code: 'upload_url_invalid', retryable: false });
        expect(res.body.requestId).toBe(res.headers['request-id']);
      }
      await expectUntouched(file.id);

      // An upload token is no download token, nor the reverse.
      const download = await request(t.app).get(`/blobs/download/${token}`).expect(403);
      expect(download.body.error.code).toBe('download_url_invalid');
      const ready = await uploadFile(t.app, tenant.keys.sandbox);
      const downloadUrl = (await files.get(ready.id).expect(200)).body.downloadUrl as string;
      const downloadToken = downloadUrl.split('/').pop()!;
      const asUpload = await files
        .put(`${url.origin}/blobs/upload/${downloadToken}`, PDF_BYTES, 'application/pdf')
        .expect(403);
      expect(asUpload.body.error.code).toBe('upload_url_invalid');
      await request(t.app)
        .get(`/blobs/download/${flipped(downloadToken)}`)
        .expect(403);
    });

    it('an expired upload URL → 403 upload_url_expired; bytes sent in time may be completed later', async () => {
      const late = (await files.create(pdfFile()).expect(201)).body;
      const inTime = (await files.create(pdfFile()).expect(201)).body;
      await files.put(inTime.uploadUrl, PDF_BYTES, 'application/pdf').expect(200);

      blobClockSkewMs = 15 * 60_000 + 1_000;
      const res = await files.put(late.uploadUrl, PDF_BYTES, 'application/pdf').expect(403);
      expect(res.body.error).toMatchObject({ code: 'upload_url_expired', details: { reason: 'expired' } });
      await expectUntouched(late.id);
      expect((await files.complete(late.id).expect(409)).body.error.code).toBe('file_upload_incomplete');

      expect((await files.complete(inTime.id).expect(200)).body.status).toBe('ready');
    });

    it('an expired download URL → 403 download_url_expired', async () => {
      const ready = await uploadFile(t.app, tenant.keys.sandbox);
      const { downloadUrl } = (await files.get(ready.id).expect(200)).body;
      blobClockSkewMs = 5 * 60_000 + 1_000;
      const res = await files.download(downloadUrl).expect(403);
      expect(JSON.parse((res.body as Buffer).toString('utf8')).error.code).toBe('download_url_expired');
    });

    it('an upload cut off mid-way stores nothing', async () => {
      const file = (await files.create(pdfFile()).expect(201)).body;
      const server = t.app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      try {
        const { port } = server.address() as AddressInfo;
        await new Promise<void>((resolve) => {
          const req = httpRequest({
            host: '127.0.0.1',
            port,
            path: pathOf(file.uploadUrl),
            method: 'PUT',
            headers: { 'Content-Type': 'application/pdf', 'Content-Length': String(PDF_BYTES.length) },
          });
          req.on('error', () => resolve());
          req.write(PDF_BYTES.subarray(0, 50), () => setTimeout(() => req.destroy(), 50));
        });
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      await expectUntouched(file.id);
      expect((await files.complete(file.id).expect(409)).body.error.code).toBe('file_upload_incomplete');
      // The partial bytes were written to a temporary file, which the failed upload removes.
      const temp = join((t.blobStorage.store as FsBlobStore).root, '.tmp');
      for (let attempt = 0; (await readdir(temp)).length > 0 && attempt < 50; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await readdir(temp)).toEqual([]);
    });

    it('completing twice → 409 file_already_completed, the file unchanged', async () => {
      const ready = await uploadFile(t.app, tenant.keys.sandbox);
      const again = await files.complete(ready.id).expect(409);
      expect(again.body.error).toMatchObject({
        code: 'file_already_completed',
        details: { fileId: ready.id },
      });
      const read = (await files.get(ready.id).expect(200)).body;
      expect({ ...read, downloadUrl: null }).toEqual(ready);
    });

    it('a PUT to the still-valid upload URL after completion changes nothing a reader gets', async () => {
      const file = (await files.create(pdfFile()).expect(201)).body;
      await files.put(file.uploadUrl, PDF_BYTES, 'application/pdf').expect(200);
      const ready = (await files.complete(file.id).expect(200)).body;
      expect(ready.checksumSha256).toBe(sha256(PDF_BYTES));

      // Same size and type, other bytes: the staged upload is replaced, the verified content is not.
      const forged = Buffer.from(PDF_BYTES);
      forged[forged.length - 2] = 0x20;
      expect(sha256(forged)).not.toBe(sha256(PDF_BYTES));
      await files.put(file.uploadUrl, forged, 'application/pdf').expect(200);
      await expect(t.blobStorage.store.checksumSha256(storageKey(file.id))).resolves.toBe(sha256(forged));

      await files.complete(file.id).expect(409);
      const read = (await files.get(file.id).expect(200)).body;
      expect({ ...read, downloadUrl: null }).toEqual(ready);
      const download = await files.download(read.downloadUrl).expect(200);
      expect(Buffer.compare(download.body as Buffer, PDF_BYTES)).toBe(0);
    });

    it('a body on complete → 422; unknown files → 404 file_not_found', async () => {
      const file = (await files.create(pdfFile()).expect(201)).body;
      const body = await files.complete(file.id).send({ force: true }).expect(422);
      expect(body.body.error.issues).toEqual([expect.objectContaining({ location: ['body', 'force'] })]);
      for (const res of [await files.get('file_unknown'), await files.complete('file_unknown')]) {
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'file_not_found', details: { fileId: 'file_unknown' } });
      }
    });
  });

  describe('isolation and attaching', () => {
    it('another organization or environment sees 404 file_not_found and cannot attach the file', async () => {
      const other = await t.createTenant();
      const ready = await uploadFile(t.app, tenant.keys.sandbox);
      const pending = (await files.create(pdfFile()).expect(201)).body;
      await files.put(pending.uploadUrl, PDF_BYTES, 'application/pdf').expect(200);

      for (const key of [other.keys.sandbox, tenant.keys.production]) {
        const theirs = fileClient(t.app, key);
        expect((await theirs.get(ready.id).expect(404)).body.error.code).toBe('file_not_found');
        expect((await theirs.complete(pending.id).expect(404)).body.error.code).toBe('file_not_found');
        const listed = await theirs.list().expect(200);
        expect(listed.body.data.map((f: { id: string }) => f.id)).not.toContain(ready.id);

        const x = client(t.app, key);
        const owner = key === other.keys.sandbox ? other : tenant;
        const authorization = (await x.create(createBody(owner)).expect(201)).body;
        const attach = await x
          .attach(authorization.id, '"1"', { fileId: ready.id, documentTypes: ['clinical_notes'] })
          .expect(404);
        expect(attach.body.error.code).toBe('file_not_found');
        expect((await x.get(authorization.id).expect(200)).body).toMatchObject({
          version: 1,
          attachments: [],
        });
      }
      // The other tenant's attempt to complete left the file pending.
      expect((await files.get(pending.id).expect(200)).body.status).toBe('pending_upload');
      expect(await countRows(t.dataSource, 'authorization_attachments', other.organizationId)).toBe(0);
    });

    it('attaching a pending file → 409 file_not_ready and no attachment row', async () => {
      const own = await t.createTenant();
      const x = client(t.app, own.keys.sandbox);
      const authorization = (await x.create(createBody(own)).expect(201)).body;
      const pending = await uploadFile(t.app, own.keys.sandbox, { ready: false });
      const res = await x
        .attach(authorization.id, '"1"', { fileId: pending.id, documentTypes: ['clinical_notes'] })
        .expect(409);
      expect(res.body.error).toMatchObject({ code: 'file_not_ready', details: { fileId: pending.id } });
      expect((await x.get(authorization.id).expect(200)).body).toMatchObject({ version: 1, attachments: [] });
      expect(await countRows(t.dataSource, 'authorization_attachments', own.organizationId)).toBe(0);
    });
  });

  describe('the blob routes', () => {
    it('answer other methods with 405 and an incomplete path with 404', async () => {
      const file = (await files.create(pdfFile()).expect(201)).body;
      const post = await request(t.app).post(pathOf(file.uploadUrl)).expect(405);
      expect(post.body.error.code).toBe('method_not_allowed');
      await request(t.app).delete('/blobs/download/x.y').expect(405);
      await request(t.app).put('/blobs/upload').expect(404);
    });
  });
});
