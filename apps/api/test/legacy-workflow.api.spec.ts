import { inflateSync } from 'node:zlib';
import request from 'supertest';
import {
  ALT_BASE,
  BASE,
  COMPLETE_CPAP_ANSWERS,
  CPAP_DOCUMENT_TYPES,
  CPAP_SELECTION,
  client,
  newKey,
  sandboxScope,
  type Client,
} from './authorization-helpers';
import { fileClient } from './file-helpers';
import { pipeline } from './pipeline-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * The legacy workflow shape and legacy actions (docs/decisions/0029 and 0032): `PATCH …/{id}` and
 * `POST …/actions/{actionId}/resolve`. Every response is also checked against the OpenAPI document by the
 * contract hook of the test app.
 */

const LEGACY = '2024-01-01';
const CURRENT = '2025-01-01';
const HEADER = 'Prior-Auth-Version';
const REQUESTED_DOCUMENT = 'payer_requested_records';

const WORKFLOW_FIELDS = [
  'actions',
  'answers',
  'attachments',
  'createdAt',
  'decisionState',
  'id',
  'latestSubmissionAttempt',
  'previewFile',
  'questionnaire',
  'requirements',
  'submissionChannel',
  'template',
  'updatedAt',
  'workflowState',
];

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let c: Client;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await t.createTenant();
  other = await t.createTenant();
  c = client(t.app, tenant.keys.sandbox);
});
afterAll(async () => {
  await t.close();
});

/** Requests of one key under one version; If-Match and Idempotency-Key only when given. */
function legacyClient(apiKey: string, version: string = LEGACY) {
  const auth = { Authorization: `Bearer ${apiKey}`, [HEADER]: version };
  const optional = (req: request.Test, ifMatch?: string | null, key?: string | null) => {
    if (ifMatch != null) req.set('If-Match', ifMatch);
    if (key != null) req.set('Idempotency-Key', key);
    return req;
  };
  return {
    create: (body: unknown) =>
      request(t.app)
        .post(BASE)
        .set(auth)
        .send(body as object),
    get: (id: string) => request(t.app).get(`${BASE}/${id}`).set(auth),
    update: (id: string, body: unknown, opts: { ifMatch?: string; key?: string; base?: string } = {}) =>
      optional(
        request(t.app)
          .patch(`${opts.base ?? BASE}/${id}`)
          .set(auth),
        opts.ifMatch,
        opts.key,
      ).send(body as object),
    attach: (id: string, ifMatch: string, fileId: string, documentTypes: string[]) =>
      request(t.app)
        .post(`${BASE}/${id}/attachments`)
        .set(auth)
        .set('If-Match', ifMatch)
        .set('Idempotency-Key', newKey())
        .send({ fileId, documentTypes }),
    confirm: (id: string, ifMatch: string) =>
      request(t.app)
        .post(`${BASE}/${id}/confirm`)
        .set(auth)
        .set('If-Match', ifMatch)
        .set('Idempotency-Key', newKey()),
    resolve: (
      id: string,
      actionId: string,
      body: unknown,
      opts: { ifMatch?: string; key?: string; base?: string } = {},
    ) =>
      optional(
        request(t.app)
          .post(`${opts.base ?? BASE}/${id}/actions/${actionId}/resolve`)
          .set(auth),
        opts.ifMatch,
        opts.key,
      ).send(body as object),
  };
}

/**
 * The text drawn in a PDF: each content stream inflated, then the strings of its text operators (hex or
 * literal) decoded. Enough for the single-byte standard fonts the preview uses.
 */
function pdfText(bytes: Buffer): string {
  const raw = bytes.toString('latin1');
  const parts: string[] = [];
  for (const match of raw.matchAll(/(?<!end)stream\r?\n/g)) {
    const start = (match.index ?? 0) + match[0].length;
    const end = raw.indexOf('endstream', start);
    const chunk = bytes.subarray(start, end);
    let content: string;
    try {
      content = inflateSync(chunk).toString('latin1');
    } catch {
      content = chunk.toString('latin1');
    }
    for (const [, hex, literal] of content.matchAll(/<([0-9A-Fa-f]*)>\s*Tj|\(((?:\\.|[^\\)])*)\)\s*Tj/g)) {
      parts.push(hex !== undefined ? Buffer.from(hex, 'hex').toString('latin1') : (literal ?? ''));
    }
  }
  return parts.join('\n');
}

const withMember = (memberId: string) =>
  COMPLETE_CPAP_ANSWERS.map((item) =>
    item.linkId === 'patient.memberId' ? { linkId: item.linkId, answer: [{ valueString: memberId }] } : item,
  );

const legacyBody = (answers = COMPLETE_CPAP_ANSWERS) => ({
  providerNpi: tenant.npi,
  templateSelection: { ...CPAP_SELECTION, serviceCodeSystem: 'HCPCS' },
  questionnaireResponse: { item: answers },
});

/** A legacy case with every answer and both route documents, confirmed and submitted to the payer. */
async function submittedCase(memberId: string) {
  const legacy = legacyClient(tenant.keys.sandbox);
  const created = await legacy.create(legacyBody(withMember(memberId))).expect(201);
  const file = await c.uploadFile();
  const ready = await legacy
    .attach(created.body.id, `"${created.body.version}"`, file.id, CPAP_DOCUMENT_TYPES)
    .expect(200);
  expect(ready.body.status).toBe('ready');
  await legacy.confirm(created.body.id, `"${ready.body.version}"`).expect(200);
  await pipeline(t).process(sandboxScope(tenant), created.body.id);
  expect((await legacy.get(created.body.id).expect(200)).body.status).toBe('waiting_on_payer');
  return created.body.id as string;
}

describe('PATCH …/{id} (legacy workflow shape)', () => {
  it('merges answers and answers the workflow shape under either version, on both path families', async () => {
    const legacy = legacyClient(tenant.keys.sandbox);
    const created = await legacy.create(legacyBody([])).expect(201);
    expect(created.body.status).toBe('draft');

    // No If-Match, no Idempotency-Key: both optional here.
    const updated = await legacy
      .update(created.body.id, { questionnaireResponse: { item: COMPLETE_CPAP_ANSWERS } })
      .expect(200);
    expect(updated.headers['prior-auth-version']).toBe(LEGACY);
    expect(updated.headers.etag).toBe('"2"');
    expect(Object.keys(updated.body).sort()).toEqual(WORKFLOW_FIELDS);
    expect(updated.body).toMatchObject({
      id: created.body.id,
      workflowState: 'needs_input',
      decisionState: 'unknown',
      template: { id: expect.any(String), version: expect.any(String), sourceName: expect.any(String) },
      submissionChannel: null,
      attachments: [],
      actions: [],
      previewFile: null,
      latestSubmissionAttempt: null,
    });
    expect(updated.body.answers).toMatchObject({
      'request.diagnosisCode': 'G47.33',
      'clinical.sleepStudyType': { code: 'psg' },
      'clinical.apneaHypopneaIndex': 22,
      'clinical.priorPapUse': false,
    });
    const questions = updated.body.requirements.questions as Array<{ required: boolean; answered: boolean }>;
    expect(questions.filter((q) => q.required).length).toBeGreaterThan(0);
    expect(questions.filter((q) => q.required).every((q) => q.answered)).toBe(true);
    // Every document requirement, a conditional one whose condition does not hold as not required.
    const documents = updated.body.requirements.documents as Array<{
      key: string;
      required: boolean;
      provided: boolean;
    }>;
    expect(documents.filter((d) => d.required).map((d) => [d.key, d.provided])).toEqual(
      CPAP_DOCUMENT_TYPES.map((type) => [type, false]),
    );
    expect(documents.some((d) => !d.required)).toBe(true);

    // A current client gets the same shape (the endpoint is legacy-only), here on the other path family.
    const asCurrent = await legacyClient(tenant.keys.sandbox, CURRENT)
      .update(
        created.body.id,
        { questionnaireResponse: { item: [{ linkId: 'clinical.priorPapUse', answer: [] }] } },
        { ifMatch: '"2"', base: ALT_BASE },
      )
      .expect(200);
    expect(asCurrent.headers['prior-auth-version']).toBe(CURRENT);
    expect(asCurrent.body.answers['clinical.priorPapUse']).toBeUndefined();
    expect(Object.keys(asCurrent.body).sort()).toEqual(WORKFLOW_FIELDS);
  });

  it('checks If-Match when sent and answers the current error codes', async () => {
    const legacy = legacyClient(tenant.keys.sandbox);
    const created = await legacy.create(legacyBody([])).expect(201);
    const stale = await legacy
      .update(created.body.id, { questionnaireResponse: { item: [] } }, { ifMatch: '"7"' })
      .expect(409);
    expect(stale.body.error.code).toBe('version_conflict');
    const malformed = await legacy
      .update(created.body.id, { questionnaireResponse: { item: [] } }, { ifMatch: 'W/"1"' })
      .expect(400);
    expect(malformed.body.error.code).toBe('bad_request');
    const invalid = await legacy.update(created.body.id, {}).expect(422);
    expect(invalid.body.error.code).toBe('request_validation_failed');
    const foreign = await legacyClient(other.keys.sandbox)
      .update(created.body.id, { questionnaireResponse: { item: [] } })
      .expect(404);
    expect(foreign.body.error.code).toBe('authorization_not_found');
  });
});

describe('previewFile', () => {
  it('is a PDF of the submission packet, stored as a submission_preview File, renewed when answers change', async () => {
    const legacy = legacyClient(tenant.keys.sandbox);
    const created = await legacy.create(legacyBody()).expect(201);
    const file = await c.uploadFile();
    await legacy.attach(created.body.id, '"1"', file.id, CPAP_DOCUMENT_TYPES).expect(200);
    const view = await legacy.update(created.body.id, { questionnaireResponse: { item: [] } }).expect(200);
    expect(view.body.workflowState).toBe('ready_to_submit');
    expect(view.body.previewFile).toMatchObject({
      id: expect.stringMatching(/^file_/),
      status: 'ready',
      purpose: 'submission_preview',
      contentType: 'application/pdf',
      downloadUrl: null,
    });

    const files = fileClient(t.app, tenant.keys.sandbox);
    const read = await files.get(view.body.previewFile.id).expect(200);
    const bytes = (await files.download(read.body.downloadUrl).expect(200)).body as Buffer;
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.length).toBe(read.body.sizeBytes);
    const text = pdfText(bytes);
    expect(text).toContain('G47.33');
    expect(text).toContain(created.body.id);
    expect(text).toContain(file.id);
    const question = created.body.questionnaire
      .flatMap((g: { items: Array<{ linkId: string; text: string }> }) => g.items)
      .find((i: { linkId: string }) => i.linkId === 'request.diagnosisCode').text as string;
    expect(text.replace(/\s+/g, ' ')).toContain(question.split(' ').slice(0, 3).join(' '));
    // Another organization cannot read it.
    await fileClient(t.app, other.keys.sandbox).get(view.body.previewFile.id).expect(404);

    const changed = await legacy
      .update(created.body.id, {
        questionnaireResponse: {
          item: [{ linkId: 'request.diagnosisCode', answer: [{ valueString: 'G47.39' }] }],
        },
      })
      .expect(200);
    expect(changed.body.previewFile.id).not.toBe(view.body.previewFile.id);
    const renewed = await files.get(changed.body.previewFile.id).expect(200);
    const renewedText = pdfText((await files.download(renewed.body.downloadUrl).expect(200)).body as Buffer);
    expect(renewedText).toContain('G47.39');
    expect(renewedText).not.toContain('G47.33');
  });
});

describe('a legacy case driven to completed under 2024-01-01 only', () => {
  it('shows the submission attempt, then completes', async () => {
    const legacy = legacyClient(tenant.keys.sandbox);
    const id = await submittedCase('SBX-APPROVED');
    expect(await pipeline(t).pollDecision(sandboxScope(tenant), id)).toBe('decision_recorded');
    const completed = await legacy.get(id).expect(200);
    expect(completed.body).toMatchObject({ status: 'completed', outcome: 'approved' });
    const refused = await legacy.update(id, { questionnaireResponse: { item: [] } }).expect(409);
    expect(refused.body.error.code).toBe('authorization_not_mutable');
  });
});

describe('legacy actions (more_info)', () => {
  it('lists the payer request and resolves it with an attachment, moving the case on to completed', async () => {
    const legacy = legacyClient(tenant.keys.sandbox);
    const id = await submittedCase('SBX-MORE-INFO');
    expect(await pipeline(t).pollDecision(sandboxScope(tenant), id)).toBe('more_information_requested');
    expect((await legacy.get(id).expect(200)).body.status).toBe('draft');

    const view = await legacy.update(id, { questionnaireResponse: { item: [] } }).expect(200);
    expect(view.body).toMatchObject({
      workflowState: 'action_required',
      decisionState: 'pending',
      latestSubmissionAttempt: {
        id: expect.stringMatching(/^sa_/),
        authorizationId: id,
        status: 'accepted',
        submissionReference: expect.any(String),
        acceptedAt: expect.any(String),
        confirmedAt: null,
        errorCode: null,
        errorMessage: null,
      },
    });
    expect(view.body.actions).toEqual([
      {
        id: expect.stringMatching(/^req_/),
        type: 'payer_request_for_information',
        status: 'open',
        message: expect.any(String),
        createdAt: expect.any(String),
        requestedDocuments: [REQUESTED_DOCUMENT],
        resolutionHint: expect.any(String),
        resolutionNote: null,
        resolvedAt: null,
      },
    ]);
    const actionId = view.body.actions[0].id as string;
    const routeAttachment = view.body.attachments[0].id as string;

    // Bad input: the same envelope and codes as the current endpoints.
    const notYet = await legacy.resolve(id, actionId, { attachmentIds: [routeAttachment] }).expect(409);
    expect(notYet.body.error.code).toBe('requirements_not_satisfied');
    const unknownAction = await legacy
      .resolve(id, 'req_unknown', { attachmentIds: [routeAttachment] })
      .expect(404);
    expect(unknownAction.body.error.code).toBe('action_not_found');
    const unknownAttachment = await legacy
      .resolve(id, actionId, { attachmentIds: ['att_unknown'] })
      .expect(404);
    expect(unknownAttachment.body.error.code).toBe('attachment_not_found');
    const empty = await legacy.resolve(id, actionId, { attachmentIds: [] }).expect(422);
    expect(empty.body.error.code).toBe('request_validation_failed');
    const otherOrg = await legacyClient(other.keys.sandbox)
      .resolve(id, actionId, { attachmentIds: [routeAttachment] })
      .expect(404);
    expect(otherOrg.body.error.code).toBe('authorization_not_found');

    // Another case of the same organization: its action and its attachments are not this case's.
    const otherCase = await legacy.create(legacyBody()).expect(201);
    const otherFile = await c.uploadFile();
    const otherAttached = await legacy
      .attach(otherCase.body.id, '"1"', otherFile.id, [REQUESTED_DOCUMENT, ...CPAP_DOCUMENT_TYPES])
      .expect(200);
    const actionOfAnotherCase = await legacy
      .resolve(otherCase.body.id, actionId, { attachmentIds: [otherAttached.body.attachments[0].id] })
      .expect(404);
    expect(actionOfAnotherCase.body.error.code).toBe('action_not_found');
    const attachmentOfAnotherCase = await legacy
      .resolve(id, actionId, { attachmentIds: [otherAttached.body.attachments[0].id] })
      .expect(404);
    expect(attachmentOfAnotherCase.body.error.code).toBe('attachment_not_found');

    const records = await c.uploadFile();
    const attached = await legacy
      .attach(id, `"${(await legacy.get(id)).body.version}"`, records.id, [REQUESTED_DOCUMENT])
      .expect(200);
    expect(attached.body.status).toBe('ready');
    const requested = attached.body.attachments.find(
      (a: { documentTypes: string[] }) => a.documentTypes[0] === REQUESTED_DOCUMENT,
    ).id as string;

    const stale = await legacy
      .resolve(id, actionId, { attachmentIds: [requested] }, { ifMatch: `"${attached.body.version - 1}"` })
      .expect(409);
    expect(stale.body.error.code).toBe('version_conflict');

    const key = newKey();
    const body = { attachmentIds: [requested], resolutionNote: 'Records attached.' };
    const resolved = await legacy
      .resolve(id, actionId, body, { ifMatch: `"${attached.body.version}"`, key, base: ALT_BASE })
      .expect(200);
    expect(resolved.headers.etag).toBe(`"${attached.body.version + 1}"`);
    expect(Object.keys(resolved.body).sort()).toEqual(WORKFLOW_FIELDS);
    expect(resolved.body.workflowState).toBe('submitting');
    expect(view.body.previewFile).toBeNull();
    expect(resolved.body.previewFile).toMatchObject({ purpose: 'submission_preview' });
    expect(resolved.body.actions).toEqual([
      expect.objectContaining({
        id: actionId,
        status: 'resolved',
        resolutionNote: 'Records attached.',
        resolvedAt: expect.any(String),
      }),
    ]);
    const replay = await legacy
      .resolve(id, actionId, body, { ifMatch: `"${attached.body.version}"`, key, base: ALT_BASE })
      .expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(resolved.body);
    const again = await legacy.resolve(id, actionId, { attachmentIds: [requested] }).expect(409);
    expect(again.body.error.code).toBe('action_not_open');

    await pipeline(t).process(sandboxScope(tenant), id);
    expect((await legacy.get(id).expect(200)).body.status).toBe('waiting_on_payer');
    expect(await pipeline(t).pollDecision(sandboxScope(tenant), id)).toBe('decision_recorded');
    expect((await legacy.get(id).expect(200)).body).toMatchObject({
      status: 'completed',
      outcome: 'approved',
    });
  });
});
