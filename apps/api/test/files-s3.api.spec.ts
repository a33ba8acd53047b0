import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import request from 'supertest';
import { client, COMPLETE_CPAP_ANSWERS, createBody, type Client } from './authorization-helpers';
import { fileClient, FILES, PDF_BYTES, pdfFile, PNG_BYTES, sha256, type FileClient } from './file-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/**
 * The same upload flow with BLOB_STORAGE_URL=s3://…: an S3-compatible server (s3rver) runs in this process on
 * a loopback port, the client PUTs to the presigned URL and downloads from it over real HTTP (fetch), and the
 * API completes the file by reading the object back through the AWS SDK. The API's own blob routes are not
 * used (404). s3rver checks a presigned URL's expiry but not its signature, so what S3 itself would refuse
 * (another Content-Type or length than signed) is the adapter's tests' business, not this file's.
 */
const BUCKET = 'prior-auth-api-test';

// The SDK warns once per process that its 2027 releases need Node 22; the project runs Node 20 until then.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

describe('files (S3 blob store against s3rver)', () => {
  let directory: string;
  let s3: S3rver;
  let endpoint: string;
  let t: TestApp;
  let tenant: TestTenant;
  let c: Client;
  let files: FileClient;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'api-s3rver-'));
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory,
      configureBuckets: [{ name: BUCKET, configs: [] }],
    });
    const address: AddressInfo = await s3.run();
    endpoint = `http://127.0.0.1:${address.port}`;
    t = await createTestApp({
      env: {
        BLOB_STORAGE_URL:
          `s3://${BUCKET}/api?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&forcePathStyle=true` +
          '&accessKeyId=S3RVER&secretAccessKey=S3RVER',
      },
    });
    tenant = await t.createTenant();
    c = client(t.app, tenant.keys.sandbox);
    files = fileClient(t.app, tenant.keys.sandbox);
  });

  afterAll(async () => {
    await t?.close();
    await s3?.close();
    await rm(directory, { recursive: true, force: true });
  });

  const put = (url: string, bytes: Buffer, contentType: string) =>
    fetch(url, { method: 'PUT', headers: { 'Content-Type': contentType }, body: bytes });

  async function uploadToS3(bytes: Buffer, contentType: string, fileName: string) {
    const created = await files
      .create(pdfFile({ fileName, contentType, sizeBytes: bytes.length }))
      .expect(201);
    expect(created.body.uploadUrl.startsWith(`${endpoint}/${BUCKET}/api/sandbox/`)).toBe(true);
    expect((await put(created.body.uploadUrl, bytes, contentType)).status).toBe(200);
    return (await files.complete(created.body.id).expect(200)).body;
  }

  it('create → PUT to the presigned URL → complete → attach (advance_case) → download the same bytes', async () => {
    const authorization = (
      await c
        .create(createBody(tenant, { questionnaireResponse: { item: COMPLETE_CPAP_ANSWERS } }))
        .expect(201)
    ).body;

    const created = await files.create(pdfFile()).expect(201);
    expect(created.headers.location).toBe(`${FILES}/${created.body.id}`);
    expect(created.body).toMatchObject({ status: 'pending_upload', downloadUrl: null });
    const presigned = new URL(created.body.uploadUrl);
    expect(presigned.origin).toBe(endpoint);
    expect(presigned.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual([
      'content-length',
      'content-type',
      'host',
    ]);

    expect((await put(created.body.uploadUrl, PDF_BYTES, 'application/pdf')).status).toBe(200);
    const pdf = await files.complete(created.body.id).expect(200);
    expect(pdf.body).toMatchObject({ status: 'ready', checksumSha256: sha256(PDF_BYTES), uploadUrl: null });

    const png = await uploadToS3(PNG_BYTES, 'image/png', 'notes.png');
    expect(png).toMatchObject({ status: 'ready', checksumSha256: sha256(PNG_BYTES) });

    const first = await c
      .attach(authorization.id, '"1"', { fileId: pdf.body.id, documentTypes: ['sleep_study_report'] })
      .expect(200);
    expect(first.body.status).toBe('requires_input');
    const second = await c
      .attach(authorization.id, '"2"', { fileId: png.id, documentTypes: ['clinical_notes'] })
      .expect(200);
    expect(second.body).toMatchObject({
      status: 'requires_confirmation',
      requirements: { documents: [] },
      nextAction: { type: 'advance_case' },
    });

    const read = await files.get(pdf.body.id).expect(200);
    expect(read.body.downloadUrl.startsWith(`${endpoint}/${BUCKET}/api/sandbox/`)).toBe(true);
    const download = await fetch(read.body.downloadUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe('attachment');
    expect(Buffer.compare(Buffer.from(await download.arrayBuffer()), PDF_BYTES)).toBe(0);
  });

  it('refuses to complete before the bytes arrived, or with the wrong bytes; the file stays pending', async () => {
    const file = (await files.create(pdfFile({ sizeBytes: PNG_BYTES.length })).expect(201)).body;
    expect((await files.complete(file.id).expect(409)).body.error.code).toBe('file_upload_incomplete');

    // A PNG declared as a PDF (same length, so only the content check can tell).
    expect((await put(file.uploadUrl, PNG_BYTES, 'application/pdf')).status).toBe(200);
    const mismatch = await files.complete(file.id).expect(422);
    expect(mismatch.body.error).toMatchObject({
      code: 'file_content_mismatch',
      details: { declaredContentType: 'application/pdf', detectedContentType: 'image/png' },
    });
    expect((await files.get(file.id).expect(200)).body).toMatchObject({
      status: 'pending_upload',
      downloadUrl: null,
    });

    const ready = await uploadToS3(PDF_BYTES, 'application/pdf', 'twice.pdf');
    expect((await files.complete(ready.id).expect(409)).body.error.code).toBe('file_already_completed');
  });

  it('a PUT to the still-valid presigned URL after completion changes nothing a reader gets', async () => {
    const file = (await files.create(pdfFile()).expect(201)).body;
    expect((await put(file.uploadUrl, PDF_BYTES, 'application/pdf')).status).toBe(200);
    const ready = (await files.complete(file.id).expect(200)).body;

    // S3 cannot revoke the URL: the staged object is replaced, the verified content is not.
    const forged = Buffer.from(PDF_BYTES);
    forged[forged.length - 2] = 0x20;
    expect(sha256(forged)).not.toBe(sha256(PDF_BYTES));
    expect((await put(file.uploadUrl, forged, 'application/pdf')).status).toBe(200);

    const read = (await files.get(file.id).expect(200)).body;
    expect({ ...read, downloadUrl: null }).toEqual(ready);
    expect(read.checksumSha256).toBe(sha256(PDF_BYTES));
    const download = await fetch(read.downloadUrl);
    expect(download.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await download.arrayBuffer()), PDF_BYTES)).toBe(0);
  });

  it('answers 404 not_found on the API’s own blob routes', async () => {
    const file = (await files.create(pdfFile()).expect(201)).body;
    const token = new URL(file.uploadUrl).searchParams.get('X-Amz-Signature') ?? 'x';
    for (const res of [
      await request(t.app)
        .put(`/blobs/upload/${token}`)
        .set('Content-Type', 'application/pdf')
        .send(PDF_BYTES),
      await request(t.app).get(`/blobs/download/${token}`),
      await request(t.app).post(`/blobs/upload/${token}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: { code: 'not_found' }, requestId: res.headers['request-id'] });
      expect(JSON.stringify(res.body)).not.toContain(token);
    }
  });
});
