import request from 'supertest';
import { client, readyToConfirm, sandboxScope, type Client } from './authorization-helpers';
import { FILES, fileClient, pdfFile } from './file-helpers';
import { pipeline } from './pipeline-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * Payer evidence (decision 0020) as a client sees it: the worker's steps run in this process (see
 * pipeline-helpers) against the simulated payer website through the browser, and what the browser captured
 * is read and downloaded through the files API, only by the case's organization and environment.
 */

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PDF_MAGIC = Buffer.from('%PDF-');
const startsWith = (bytes: Buffer, magic: Buffer) => bytes.subarray(0, magic.length).equals(magic);

let t: TestApp;
let tenant: TestTenant;
let stranger: TestTenant;
let c: Client;

beforeAll(async () => {
  t = await createTestApp();
  [tenant, stranger] = await Promise.all([t.createTenant(), t.createTenant()]);
  c = client(t.app, tenant.keys.sandbox);
});
afterAll(() => t.close());

/** A sandbox case through submission and decision, with evidence; answers it as the API presents it. */
async function decidedCase() {
  const { authorization } = await readyToConfirm(c, tenant);
  await c
    .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
    .expect(200);
  const steps = pipeline(t);
  await steps.process(sandboxScope(tenant), authorization.id);
  expect(await steps.pollDecision(sandboxScope(tenant), authorization.id)).toBe('decision_recorded');
  return (await c.get(authorization.id).expect(200)).body;
}

describe('payer evidence through the API', () => {
  it('links the confirmation image and the decision letter, downloadable by the case’s tenant only', async () => {
    const decided = await decidedCase();
    const { payerReceipt, decision } = decided.submission;
    expect(payerReceipt.details.confirmationFileId).toEqual(expect.stringMatching(/^file_/));
    expect(decision.details.letterFileId).toEqual(expect.stringMatching(/^file_/));

    const files = fileClient(t.app, tenant.keys.sandbox);
    const image = await files.get(payerReceipt.details.confirmationFileId).expect(200);
    expect(image.body).toMatchObject({
      status: 'ready',
      purpose: 'payer_evidence',
      contentType: 'image/png',
      uploadUrl: null,
    });
    const imageBytes = await files.download(image.body.downloadUrl).expect(200);
    expect(imageBytes.headers['content-type']).toBe('image/png');
    expect(Buffer.from(imageBytes.body)).toHaveLength(image.body.sizeBytes);
    expect(startsWith(Buffer.from(imageBytes.body), PNG_MAGIC)).toBe(true);

    const letter = await files.get(decision.details.letterFileId).expect(200);
    expect(letter.body).toMatchObject({ purpose: 'payer_evidence', contentType: 'application/pdf' });
    const letterBytes = await files.download(letter.body.downloadUrl).expect(200);
    expect(startsWith(Buffer.from(letterBytes.body), PDF_MAGIC)).toBe(true);

    // The confirmation page's HTML is kept too, served as an attachment of unknown type.
    const listed = await files.list('?limit=100').expect(200);
    const html = listed.body.data.find((f: { contentType: string }) => f.contentType === 'text/html');
    expect(html).toMatchObject({
      purpose: 'payer_evidence',
      fileName: 'confirmation-confirmation_html.html',
    });
    const htmlRead = await files.get(html.id).expect(200);
    const htmlBytes = await files.download(htmlRead.body.downloadUrl).expect(200);
    expect(htmlBytes.headers['content-type']).toBe('application/octet-stream');
    expect(Buffer.from(htmlBytes.body).toString('utf8')).toContain(payerReceipt.referenceNumber);

    for (const key of [stranger.keys.sandbox, tenant.keys.production]) {
      const other = fileClient(t.app, key);
      for (const fileId of [payerReceipt.details.confirmationFileId, decision.details.letterFileId]) {
        const missing = await other.get(fileId).expect(404);
        expect(missing.body.error.code).toBe('file_not_found');
      }
    }
  });

  it('refuses to create a payer_evidence file (422) and to attach one', async () => {
    const created = await request(t.app)
      .post(FILES)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .send(pdfFile({ purpose: 'payer_evidence' }))
      .expect(422);
    expect(created.body.error).toMatchObject({
      code: 'file_content_mismatch',
      message: 'Files of purpose payer_evidence are created by the service only.',
      details: { purpose: 'payer_evidence' },
    });

    const decided = await decidedCase();
    const { authorization } = await readyToConfirm(c, tenant, 'requires_confirmation');
    const attached = await c
      .attach(authorization.id, `"${authorization.version}"`, {
        fileId: decided.submission.decision.details.letterFileId,
        documentTypes: ['clinical_notes'],
      })
      .expect(422);
    expect(attached.body.error.code).toBe('file_content_mismatch');
  });
});
