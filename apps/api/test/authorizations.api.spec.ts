import { JOB_TABLE } from '@prior-auth/persistence-postgres';
import request from 'supertest';
import {
  ALT_BASE,
  asWorker,
  BASE,
  client,
  COMPLETE_CPAP_ANSWERS,
  countRows,
  CPAP_DOCUMENT_TYPES,
  CPAP_SELECTION,
  createBody,
  readyToConfirm,
  sandboxScope,
  type Client,
} from './authorization-helpers';
import { uploadFile } from './file-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

const REQUIRED_FIELDS = [
  'id',
  'version',
  'status',
  'policy',
  'providerNpi',
  'payer',
  'templateSelection',
  'questionnaire',
  'questionnaireResponse',
  'requirements',
  'submission',
  'createdAt',
  'updatedAt',
];
const OPTIONAL_FIELDS = [
  'outcome',
  'portalAuthMode',
  'attachments',
  'nextAction',
  'completedAt',
  'canceledAt',
];
/** Beyond the spec's shape (decision 21, docs/decisions/0031-events-and-webhooks.md). */
const ADDITIONAL_FIELDS = ['failure'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('authorization endpoints', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let c: Client;
  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant();
    c = client(t.app, tenant.keys.sandbox);
  });
  afterAll(() => t.close());

  describe('create', () => {
    it('answers 201 with Location, ETag and the current-shape authorization at version 1', async () => {
      const res = await c.create(createBody(tenant)).expect(201);
      const body = res.body;
      expect(res.headers.location).toBe(`${BASE}/${body.id}`);
      expect(res.headers.etag).toBe('"1"');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(body).sort()).toEqual(
        [...REQUIRED_FIELDS, ...OPTIONAL_FIELDS, ...ADDITIONAL_FIELDS].sort(),
      );
      expect(body).toMatchObject({
        id: expect.stringMatching(/^auth_/),
        version: 1,
        status: 'requires_input',
        policy: { finalSubmission: 'automatic' },
        providerNpi: tenant.npi,
        payer: expect.objectContaining({ id: 'payer_uhc', displayName: 'UnitedHealthcare' }),
        templateSelection: CPAP_SELECTION,
        outcome: null,
        portalAuthMode: 'automated',
        attachments: [],
        submission: { reviewSnapshot: null, payerReceipt: null, decision: null, decisionDueAt: null },
        failure: null,
        completedAt: null,
        canceledAt: null,
        nextAction: {
          id: expect.stringMatching(/^act_/),
          type: 'provide_requirements',
          description: expect.any(String),
          authorizationVersion: 1,
          requirementsVersion: 1,
          createdAt: expect.stringMatching(ISO),
          owner: 'customer',
          reviewSnapshotId: null,
          expiresAt: null,
        },
      });
      expect(body.createdAt).toMatch(ISO);
      expect(body.updatedAt).toMatch(ISO);
      // The questionnaire is the route's, with the patient group (decision 0025).
      expect(body.questionnaire[0]).toMatchObject({ id: 'patient', title: 'Patient' });
      const linkIds = body.questionnaire.flatMap((g: { items: Array<{ linkId: string }> }) =>
        g.items.map((i) => i.linkId),
      );
      expect(linkIds).toEqual(expect.arrayContaining(['patient.memberId', 'clinical.sleepStudyType']));
      // Defaults are applied at create time; everything required is still asked for.
      expect(body.questionnaireResponse.item).toEqual([
        { linkId: 'request.expedited', answer: [{ valueBoolean: false }] },
      ]);
      expect(body.requirements.version).toBe(1);
      expect(body.requirements.questions).toEqual(
        expect.arrayContaining([{ linkId: 'patient.memberId', message: expect.any(String) }]),
      );
      expect(body.requirements.documents.map((d: { type: string }) => d.type).sort()).toEqual(
        CPAP_DOCUMENT_TYPES,
      );
      expect(body.requirements.issues).toEqual([]);
      // Nothing internal leaks.
      const text = JSON.stringify(body);
      for (const internal of [
        'organizationId',
        'environment',
        'routeId',
        'documentRequirements',
        'portalIssues',
        tenant.organizationId,
      ]) {
        expect(text).not.toContain(internal);
      }
    });

    it('merges initial answers; with every answer given only the documents remain', async () => {
      const res = await c
        .create(
          createBody(tenant, {
            questionnaireResponse: { item: COMPLETE_CPAP_ANSWERS },
            portalAuthMode: 'automated',
          }),
        )
        .expect(201);
      expect(res.body.status).toBe('requires_input');
      expect(res.body.requirements.questions).toEqual([]);
      expect(res.body.requirements.documents).toHaveLength(2);
      expect(res.body.questionnaireResponse.item).toEqual(expect.arrayContaining(COMPLETE_CPAP_ANSWERS));
    });

    it('serves the same resource under /v1/prior-authorizations', async () => {
      const res = await c.create(createBody(tenant), undefined, ALT_BASE).expect(201);
      expect(res.headers.location).toBe(`${ALT_BASE}/${res.body.id}`);
      const again = await c.get(res.body.id, BASE).expect(200);
      expect(again.body).toEqual(res.body);
    });

    it('answers final_submission_policy_required (400) for a missing policy or policy.finalSubmission', async () => {
      for (const policy of [undefined, null, {}, { finalSubmission: null }]) {
        const body = createBody(tenant, { policy });
        if (policy === undefined) delete (body as Record<string, unknown>).policy;
        const res = await c.create(body).expect(400);
        expect(res.body.error).toMatchObject({ code: 'final_submission_policy_required', retryable: false });
      }
    });

    it('answers provider_not_found, payer_not_found and unsupported_template_selection', async () => {
      const npi = await c.create(createBody(tenant, { providerNpi: '1000000004' })).expect(404);
      expect(npi.body.error.code).toBe('provider_not_found');
      const payer = await c
        .create(createBody(tenant, { templateSelection: { ...CPAP_SELECTION, payerId: 'payer_nope' } }))
        .expect(404);
      expect(payer.body.error.code).toBe('payer_not_found');
      const code = await c
        .create(createBody(tenant, { templateSelection: { ...CPAP_SELECTION, serviceCode: 'E9999' } }))
        .expect(409);
      expect(code.body.error.code).toBe('unsupported_template_selection');
      const state = await c
        .create(createBody(tenant, { templateSelection: { ...CPAP_SELECTION, insuranceState: 'ZZ' } }))
        .expect(409);
      expect(state.body.error.code).toBe('unsupported_template_selection');
    });

    it('requires an Idempotency-Key (422 at the header)', async () => {
      const res = await c.create(createBody(tenant), null).expect(422);
      expect(res.body.error).toMatchObject({
        code: 'request_validation_failed',
        issues: [
          { errorType: 'missing', location: ['headers', 'Idempotency-Key'], message: expect.any(String) },
        ],
      });
    });
  });

  describe('retrieve and list', () => {
    it('retrieves with an ETag, and answers authorization_not_found for an unknown id', async () => {
      const created = await c.create(createBody(tenant)).expect(201);
      const res = await c.get(created.body.id).expect(200);
      expect(res.headers.etag).toBe('"1"');
      expect(res.body).toEqual(created.body);
      const missing = await c.get('auth_doesnotexist').expect(404);
      expect(missing.body).toEqual({
        error: {
          code: 'authorization_not_found',
          message: expect.any(String),
          retryable: false,
          details: expect.any(Object),
          issues: [],
        },
        requestId: missing.headers['request-id'],
      });
    });

    it('lists newest first with a status filter and keyset pages', async () => {
      const own = await t.createTenant();
      const oc = client(t.app, own.keys.sandbox);
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await oc.create(createBody(own)).expect(201)).body.id);
      const canceled = ids[1]!;
      await oc.cancel(canceled, '"1"').expect(200);

      const all = await oc.list().expect(200);
      expect(all.body.data.map((a: { id: string }) => a.id)).toEqual([...ids].reverse());
      expect(all.body.pagination).toEqual({ nextCursor: null });
      expect(all.body.data[0]).toMatchObject({ version: 1, status: 'requires_input' });

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: request.Response = await oc
          .list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
          .expect(200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.data.map((a: { id: string }) => a.id));
        cursor = page.body.pagination.nextCursor;
      } while (cursor);
      expect(seen).toEqual([...ids].reverse());

      const onlyCanceled = await oc.list('?status=canceled').expect(200);
      expect(onlyCanceled.body.data.map((a: { id: string }) => a.id)).toEqual([canceled]);
      const input = await oc.list('?status=requires_input&limit=100').expect(200);
      expect(input.body.data).toHaveLength(4);
    });

    it('refuses bad limits, statuses, tampered or foreign cursors and unknown query fields with 422', async () => {
      const own = await t.createTenant();
      const oc = client(t.app, own.keys.sandbox);
      for (let i = 0; i < 2; i += 1) await oc.create(createBody(own)).expect(201);
      const first = await oc.list('?limit=1').expect(200);
      const cursor = first.body.pagination.nextCursor as string;
      expect(cursor).toEqual(expect.any(String));

      for (const query of ['?limit=0', '?limit=101', '?limit=1.5', '?limit=x']) {
        const res = await oc.list(query).expect(422);
        expect(res.body.error.issues).toEqual([expect.objectContaining({ location: ['query', 'limit'] })]);
      }
      const status = await oc.list('?status=draft').expect(422);
      expect(status.body.error.issues).toEqual([
        expect.objectContaining({ location: ['query', 'status'], errorType: 'enum' }),
      ]);
      const tampered = await oc.list(`?limit=1&cursor=${encodeURIComponent(`x${cursor}`)}`).expect(422);
      expect(tampered.body.error.issues).toEqual([
        expect.objectContaining({ location: ['query', 'cursor'] }),
      ]);
      // Bound to the filters and to the tenant.
      await oc.list(`?limit=1&status=requires_input&cursor=${encodeURIComponent(cursor)}`).expect(422);
      await client(t.app, tenant.keys.sandbox)
        .list(`?limit=1&cursor=${encodeURIComponent(cursor)}`)
        .expect(422);
      await client(t.app, own.keys.production)
        .list(`?limit=1&cursor=${encodeURIComponent(cursor)}`)
        .expect(422);
      const unknown = await oc.list('?sort=asc').expect(422);
      expect(unknown.body.error.issues).toEqual([
        expect.objectContaining({ location: ['query', 'sort'], errorType: 'unknown_field' }),
      ]);
    });
  });

  describe('patch answers', () => {
    it('merges by linkId (decision 0028), bumps the version and answers the authorization with its ETag', async () => {
      const created = await c.create(createBody(tenant)).expect(201);
      const id = created.body.id;
      const first = await c
        .patch(id, '"1"', {
          questionnaireResponse: {
            item: [
              { linkId: 'patient.memberId', answer: [{ valueString: 'M1' }] },
              { linkId: 'patient.firstName', answer: [{ valueString: 'Ada' }] },
            ],
          },
        })
        .expect(200);
      expect(first.headers.etag).toBe('"2"');
      expect(first.body.version).toBe(2);
      const second = await c
        .patch(id, '"2"', {
          questionnaireResponse: {
            item: [
              { linkId: 'patient.memberId', answer: [] },
              { linkId: 'patient.lastName', answer: [{ valueString: 'Lovelace' }] },
            ],
          },
        })
        .expect(200);
      expect(second.body.version).toBe(3);
      const items = second.body.questionnaireResponse.item.map((i: { linkId: string }) => i.linkId);
      expect(items).toEqual(
        expect.arrayContaining(['patient.firstName', 'patient.lastName', 'request.expedited']),
      );
      expect(items).not.toContain('patient.memberId');
      expect(second.body.requirements.questions).toEqual(
        expect.arrayContaining([expect.objectContaining({ linkId: 'patient.memberId' })]),
      );
      // A value the questionnaire refuses is a requirement issue, not a request error.
      const wrong = await c
        .patch(id, '"3"', {
          questionnaireResponse: {
            item: [{ linkId: 'patient.birthDate', answer: [{ valueDate: '1850-01-01' }] }],
          },
        })
        .expect(200);
      expect(wrong.body.requirements.issues).toEqual([
        expect.objectContaining({ field: 'patient.birthDate', severity: 'error' }),
      ]);
    });

    it('checks If-Match: 428 missing, 400 malformed, 409 version_conflict with details', async () => {
      const id = (await c.create(createBody(tenant)).expect(201)).body.id;
      const body = { questionnaireResponse: { item: [] } };
      const missing = await c.patch(id, null, body).expect(428);
      expect(missing.body.error.code).toBe('precondition_required');
      for (const header of ['1', 'W/"1"', '"1", "2"', '*', '"abc"', '""', '"-1"']) {
        const res = await c.patch(id, header, body).expect(400);
        expect(res.body.error.code).toBe('bad_request');
      }
      const stale = await c.patch(id, '"7"', body).expect(409);
      expect(stale.body.error).toMatchObject({
        code: 'version_conflict',
        retryable: false,
        details: { expectedVersion: 7, actualVersion: 1 },
      });
      expect((await c.get(id).expect(200)).body.version).toBe(1);
    });

    it('validates the body before the precondition, and the tenant (404) before both', async () => {
      const id = (await c.create(createBody(tenant)).expect(201)).body.id;
      const invalid = await c.patch(id, null, { questionnaireResponse: { item: 'x' } }).expect(422);
      expect(invalid.body.error.issues[0].location).toEqual(['body', 'questionnaireResponse', 'item']);
      await c.patch('auth_unknown', null, { questionnaireResponse: { item: [] } }).expect(404);
      await c.patch('auth_unknown', 'nonsense', { questionnaireResponse: { item: [] } }).expect(404);
      const notFound = await c
        .patch('auth_unknown', '"1"', { questionnaireResponse: { item: [] } })
        .expect(404);
      expect(notFound.body.error.code).toBe('authorization_not_found');
    });

    it('answers authorization_not_mutable once the case is canceled', async () => {
      const id = (await c.create(createBody(tenant)).expect(201)).body.id;
      await c.cancel(id, '"1"').expect(200);
      const res = await c.patch(id, '"2"', { questionnaireResponse: { item: [] } }).expect(409);
      expect(res.body.error.code).toBe('authorization_not_mutable');
    });

    it('lets exactly one of 20 parallel patches with the same If-Match win', async () => {
      const id = (await c.create(createBody(tenant)).expect(201)).body.id;
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          c.patch(id, '"1"', {
            questionnaireResponse: {
              item: [{ linkId: 'patient.memberId', answer: [{ valueString: `M${i}` }] }],
            },
          }),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array<number>(19).fill(409)]);
      for (const res of responses.filter((r) => r.status === 409)) {
        expect(res.body.error).toMatchObject({
          code: 'version_conflict',
          details: { expectedVersion: 1, actualVersion: 2 },
        });
      }
      const winner = responses.find((r) => r.status === 200)!;
      const stored = await c.get(id).expect(200);
      expect(stored.body.version).toBe(2);
      expect(stored.body.questionnaireResponse).toEqual(winner.body.questionnaireResponse);
    });
  });

  describe('attachments', () => {
    it('attaches a ready file; all blockers clear → requires_confirmation with advance_case', async () => {
      const created = await c
        .create(createBody(tenant, { questionnaireResponse: { item: COMPLETE_CPAP_ANSWERS } }))
        .expect(201);
      const file = await c.uploadFile({ fileName: 'study.pdf' });
      const res = await c
        .attach(created.body.id, '"1"', {
          fileId: file.id,
          documentTypes: CPAP_DOCUMENT_TYPES,
          description: 'PSG report',
        })
        .expect(200);
      expect(res.headers.etag).toBe('"2"');
      expect(res.body).toMatchObject({
        version: 2,
        status: 'requires_confirmation',
        requirements: { questions: [], documents: [], issues: [] },
        nextAction: { type: 'advance_case', authorizationVersion: 2 },
        attachments: [
          {
            id: expect.stringMatching(/^att_/),
            fileId: file.id,
            createdAt: expect.stringMatching(ISO),
            documentTypes: CPAP_DOCUMENT_TYPES,
            label: 'study.pdf',
            description: 'PSG report',
          },
        ],
      });
    });

    it('keeps requires_input while a document is missing; works under /v1/prior-authorizations', async () => {
      const created = await c
        .create(createBody(tenant, { questionnaireResponse: { item: COMPLETE_CPAP_ANSWERS } }))
        .expect(201);
      const file = await c.uploadFile();
      const res = await c
        .attach(
          created.body.id,
          '"1"',
          { fileId: file.id, documentTypes: ['clinical_notes'] },
          undefined,
          ALT_BASE,
        )
        .expect(200);
      expect(res.body.status).toBe('requires_input');
      expect(res.body.requirements.documents).toEqual([
        { type: 'sleep_study_report', message: expect.any(String) },
      ]);
      expect(res.body.attachments[0].description).toBeNull();
    });

    it('answers file_not_found (unknown or another tenant’s file) and file_not_ready', async () => {
      const id = (await c.create(createBody(tenant)).expect(201)).body.id;
      const unknown = await c
        .attach(id, '"1"', { fileId: 'file_unknown', documentTypes: ['clinical_notes'] })
        .expect(404);
      expect(unknown.body.error.code).toBe('file_not_found');
      const other = await t.createTenant();
      const foreign = await uploadFile(t.app, other.keys.sandbox);
      const notMine = await c
        .attach(id, '"1"', { fileId: foreign.id, documentTypes: ['clinical_notes'] })
        .expect(404);
      expect(notMine.body.error.code).toBe('file_not_found');
      const pending = await c.uploadFile({ ready: false });
      const notReady = await c
        .attach(id, '"1"', { fileId: pending.id, documentTypes: ['clinical_notes'] })
        .expect(409);
      expect(notReady.body.error.code).toBe('file_not_ready');
      expect((await c.get(id).expect(200)).body).toMatchObject({ version: 1, attachments: [] });
    });

    it('validates the body, the Idempotency-Key and If-Match', async () => {
      const id = (await c.create(createBody(tenant)).expect(201)).body.id;
      const file = await c.uploadFile();
      const empty = await c.attach(id, '"1"', { fileId: file.id, documentTypes: [] }).expect(422);
      expect(empty.body.error.issues).toEqual([
        expect.objectContaining({ location: ['body', 'documentTypes'], errorType: 'too_short' }),
      ]);
      const noKey = await c.attach(id, '"1"', { fileId: file.id, documentTypes: ['x'] }, null).expect(422);
      expect(noKey.body.error.issues).toEqual([
        expect.objectContaining({ location: ['headers', 'Idempotency-Key'] }),
      ]);
      await c.attach(id, null, { fileId: file.id, documentTypes: ['x'] }).expect(428);
      await c.attach(id, '"0"', { fileId: file.id, documentTypes: ['x'] }).expect(409);
      await c.attach('auth_unknown', null, { fileId: file.id, documentTypes: ['x'] }).expect(404);
    });

    it('deletes an attachment: 200 with the updated authorization; the case needs the document again', async () => {
      const { authorization } = await readyToConfirm(c, tenant);
      const attachmentId = authorization.attachments[0].id;
      await c.detach(authorization.id, attachmentId, null).expect(428);
      await c.detach(authorization.id, attachmentId, '"1"').expect(409);
      const res = await c.detach(authorization.id, attachmentId, `"${authorization.version}"`).expect(200);
      expect(res.headers.etag).toBe(`"${authorization.version + 1}"`);
      expect(res.body).toMatchObject({
        status: 'requires_input',
        attachments: [],
        nextAction: { type: 'provide_requirements' },
      });
      expect(res.body.requirements.documents).toHaveLength(2);
      const again = await c.detach(authorization.id, attachmentId, `"${res.body.version}"`).expect(404);
      expect(again.body.error.code).toBe('attachment_not_found');
      await c.detach('auth_unknown', attachmentId, null).expect(404);
    });
  });

  describe('confirm', () => {
    it('advance_case moves the case to processing and hands it to the worker', async () => {
      const { authorization } = await readyToConfirm(c, tenant);
      const res = await c
        .confirm(authorization.id, `"${authorization.version}"`, {
          nextActionId: authorization.nextAction.id,
        })
        .expect(200);
      expect(res.headers.etag).toBe(`"${authorization.version + 1}"`);
      expect(res.body).toMatchObject({
        status: 'processing',
        nextAction: null,
        version: authorization.version + 1,
      });
      const jobs = await t.dataSource.query(
        `SELECT name AS type FROM ${JOB_TABLE} WHERE data->>'organizationId' = $1 AND data->>'authorizationId' = $2`,
        [tenant.organizationId, authorization.id],
      );
      expect(jobs).toEqual([{ type: 'process' }]);
      // Not awaiting confirmation any more.
      const again = await c
        .confirm(authorization.id, `"${res.body.version}"`, { nextActionId: authorization.nextAction.id })
        .expect(409);
      expect(again.body.error.code).toBe('authorization_not_confirmable');
    });

    it('answers next_action_required, next_action_mismatch and version_conflict', async () => {
      const { authorization } = await readyToConfirm(c, tenant);
      const ifMatch = `"${authorization.version}"`;
      const required = await c.confirm(authorization.id, ifMatch, {}).expect(409);
      expect(required.body.error.code).toBe('next_action_required');
      const noBody = await c.confirm(authorization.id, ifMatch, undefined).expect(409);
      expect(noBody.body.error.code).toBe('next_action_required');
      const mismatch = await c.confirm(authorization.id, ifMatch, { nextActionId: 'act_other' }).expect(409);
      expect(mismatch.body.error).toMatchObject({
        code: 'next_action_mismatch',
        details: { currentNextActionId: authorization.nextAction.id },
      });
      const stale = await c
        .confirm(authorization.id, '"1"', { nextActionId: authorization.nextAction.id })
        .expect(409);
      expect(stale.body.error).toMatchObject({
        code: 'version_conflict',
        details: { expectedVersion: 1, actualVersion: authorization.version },
      });
      expect((await c.get(authorization.id).expect(200)).body.status).toBe('requires_confirmation');
    });

    it('answers next_action_not_confirmable for provide_requirements and authorization_not_confirmable otherwise', async () => {
      const created = (await c.create(createBody(tenant)).expect(201)).body;
      const provide = await c.confirm(created.id, '"1"', { nextActionId: created.nextAction.id }).expect(409);
      expect(provide.body.error.code).toBe('next_action_not_confirmable');
      const other = await c.confirm(created.id, '"1"', { nextActionId: 'act_x' }).expect(409);
      expect(other.body.error.code).toBe('authorization_not_confirmable');
    });

    it('validates the key, the body and If-Match', async () => {
      const { authorization } = await readyToConfirm(c, tenant);
      const ifMatch = `"${authorization.version}"`;
      const noKey = await c
        .confirm(authorization.id, ifMatch, { nextActionId: authorization.nextAction.id }, null)
        .expect(422);
      expect(noKey.body.error.issues[0].location).toEqual(['headers', 'Idempotency-Key']);
      const wrongType = await c.confirm(authorization.id, ifMatch, { nextActionId: 42 }).expect(422);
      expect(wrongType.body.error.issues[0].location).toEqual(['body', 'nextActionId']);
      const extra = await c
        .confirm(authorization.id, ifMatch, { nextActionId: 'a', force: true })
        .expect(422);
      expect(extra.body.error.issues).toEqual([
        expect.objectContaining({ location: ['body', 'force'], errorType: 'unknown_field' }),
      ]);
      await c.confirm(authorization.id, null, { nextActionId: authorization.nextAction.id }).expect(428);
      await c.confirm(authorization.id, 'W/"2"', { nextActionId: authorization.nextAction.id }).expect(400);
      expect((await c.get(authorization.id).expect(200)).body.status).toBe('requires_confirmation');
    });

    it('approve_submission: approves the current review snapshot; an edit makes it review_stale', async () => {
      const { authorization } = await readyToConfirm(c, tenant, 'requires_confirmation');
      const advanced = (
        await c
          .confirm(authorization.id, `"${authorization.version}"`, {
            nextActionId: authorization.nextAction.id,
          })
          .expect(200)
      ).body;
      // The worker prepares the submission and asks for the final approval.
      const finalApproval = async () =>
        asWorker(t.dataSource, sandboxScope(tenant), authorization.id, (a, ctx) =>
          a.requestFinalApproval(
            { summary: { pages: 3 }, warnings: ['Check the study date'], liveViewUrl: null },
            ctx,
          ),
        );
      await finalApproval();
      const review = (await c.get(authorization.id).expect(200)).body;
      expect(review).toMatchObject({
        status: 'requires_confirmation',
        version: advanced.version + 1,
        nextAction: { type: 'approve_submission', reviewSnapshotId: expect.stringMatching(/^rs_/) },
        submission: {
          reviewSnapshot: {
            id: review.nextAction.reviewSnapshotId,
            generatedAt: expect.stringMatching(ISO),
            covers: {
              authorizationVersion: expect.any(Number),
              requirementsVersion: expect.any(Number),
              questionnaireResponseVersion: expect.any(Number),
              attachmentVersion: expect.any(Number),
            },
            status: 'current',
            kind: 'final_submission',
            summary: { pages: 3 },
            warnings: ['Check the study date'],
            liveViewUrl: null,
            attachments: [expect.objectContaining({ fileId: authorization.attachments[0].fileId })],
          },
        },
      });
      expect(review.submission.reviewSnapshot).not.toHaveProperty('nextActionId');

      // An edit supersedes the approval action and makes the snapshot stale.
      const edited = (
        await c
          .patch(authorization.id, `"${review.version}"`, {
            questionnaireResponse: {
              item: [{ linkId: 'patient.firstName', answer: [{ valueString: 'Augusta' }] }],
            },
          })
          .expect(200)
      ).body;
      const stale = await c
        .confirm(authorization.id, `"${edited.version}"`, { nextActionId: review.nextAction.id })
        .expect(409);
      expect(stale.body.error.code).toBe('review_stale');

      // The current action (advance_case after the edit) goes round again to a fresh approval.
      const readvanced = (
        await c
          .confirm(authorization.id, `"${edited.version}"`, { nextActionId: edited.nextAction.id })
          .expect(200)
      ).body;
      await finalApproval();
      const fresh = (await c.get(authorization.id).expect(200)).body;
      expect(fresh.version).toBe(readvanced.version + 1);
      const approved = await c
        .confirm(authorization.id, `"${fresh.version}"`, { nextActionId: fresh.nextAction.id })
        .expect(200);
      expect(approved.body).toMatchObject({
        status: 'processing',
        submission: { reviewSnapshot: { status: 'approved' } },
      });
    });
  });

  describe('cancel', () => {
    it('cancels (canceledAt set), then refuses to cancel again and rejects later writes', async () => {
      const id = (await c.create(createBody(tenant)).expect(201)).body.id;
      const res = await c.cancel(id, '"1"').expect(200);
      expect(res.headers.etag).toBe('"2"');
      expect(res.body).toMatchObject({
        status: 'canceled',
        version: 2,
        nextAction: null,
        canceledAt: expect.stringMatching(ISO),
      });
      const again = await c.cancel(id, '"2"').expect(409);
      expect(again.body.error.code).toBe('authorization_not_cancelable');
      const file = await c.uploadFile();
      const attach = await c
        .attach(id, '"2"', { fileId: file.id, documentTypes: ['clinical_notes'] })
        .expect(409);
      expect(attach.body.error.code).toBe('authorization_not_mutable');
    });

    it('preserves the receipt and decision of a completed case, and refuses to cancel it', async () => {
      const { authorization } = await readyToConfirm(c, tenant);
      await c
        .confirm(authorization.id, `"${authorization.version}"`, {
          nextActionId: authorization.nextAction.id,
        })
        .expect(200);
      await asWorker(t.dataSource, sandboxScope(tenant), authorization.id, (a, ctx) => {
        a.crossFinalBoundary(ctx);
        a.recordReceipt(
          {
            receivedAt: ctx.now,
            referenceNumber: 'REF-1',
            channel: 'portal',
            payerStatusText: 'Received',
            details: {},
          },
          ctx,
        );
      });
      const waiting = (await c.get(authorization.id).expect(200)).body;
      expect(waiting).toMatchObject({
        status: 'waiting_on_payer',
        submission: {
          payerReceipt: {
            receivedAt: expect.stringMatching(ISO),
            referenceNumber: 'REF-1',
            channel: 'portal',
            payerStatusText: 'Received',
            details: {},
          },
        },
      });
      // Decision 21: due 7 calendar days after the receipt (the case is not expedited).
      expect(Date.parse(waiting.submission.decisionDueAt)).toBe(
        Date.parse(waiting.submission.payerReceipt.receivedAt) + 7 * 24 * 60 * 60 * 1000,
      );
      await asWorker(t.dataSource, sandboxScope(tenant), authorization.id, (a, ctx) =>
        a.recordDecision(
          {
            receivedAt: ctx.now,
            outcome: 'approved',
            authorizationNumber: 'AUTH-9',
            payerStatusText: 'Approved',
            effectiveFrom: '2026-02-01',
            effectiveTo: '2026-08-01',
            modifications: [],
            denialReasons: [],
            details: {},
          },
          ctx,
        ),
      );
      const completed = (await c.get(authorization.id).expect(200)).body;
      expect(completed).toMatchObject({
        status: 'completed',
        outcome: 'approved',
        completedAt: expect.stringMatching(ISO),
        submission: {
          decision: {
            receivedAt: expect.stringMatching(ISO),
            authorizationNumber: 'AUTH-9',
            payerStatusText: 'Approved',
            effectiveFrom: '2026-02-01',
            effectiveTo: '2026-08-01',
            modifications: [],
            denialReasons: [],
            details: {},
          },
        },
      });
      expect(completed.submission.decision).not.toHaveProperty('outcome');
      const refused = await c.cancel(authorization.id, `"${completed.version}"`).expect(409);
      expect(refused.body.error.code).toBe('authorization_not_cancelable');
    });

    it('requires the key and If-Match, and takes no body', async () => {
      const id = (await c.create(createBody(tenant)).expect(201)).body.id;
      const noKey = await c.cancel(id, '"1"', null).expect(422);
      expect(noKey.body.error.issues[0].location).toEqual(['headers', 'Idempotency-Key']);
      await c.cancel(id, null).expect(428);
      await c.cancel(id, '1').expect(400);
      const stale = await c.cancel(id, '"3"').expect(409);
      expect(stale.body.error).toMatchObject({
        code: 'version_conflict',
        details: { expectedVersion: 3, actualVersion: 1 },
      });
      const withBody = await c.cancel(id, '"1"').send({ reason: 'x' }).expect(422);
      expect(withBody.body.error.issues).toEqual([expect.objectContaining({ location: ['body', 'reason'] })]);
      await c.cancel(id, '"1"').send({}).expect(200);
    });
  });

  describe('isolation', () => {
    it('answers 404 to another organization and to the other environment, and changes nothing', async () => {
      const created = (await c.create(createBody(tenant)).expect(201)).body;
      const other = await t.createTenant();
      const file = await c.uploadFile();
      for (const key of [other.keys.sandbox, other.keys.production, tenant.keys.production]) {
        const x = client(t.app, key);
        expect((await x.get(created.id).expect(404)).body.error.code).toBe('authorization_not_found');
        await x.get(created.id, ALT_BASE).expect(404);
        await x.patch(created.id, '"1"', { questionnaireResponse: { item: [] } }).expect(404);
        await x.patch(created.id, null, { questionnaireResponse: { item: [] } }).expect(404);
        await x.attach(created.id, '"1"', { fileId: file.id, documentTypes: ['clinical_notes'] }).expect(404);
        await x.detach(created.id, 'att_x', '"1"').expect(404);
        await x.confirm(created.id, '"1"', { nextActionId: created.nextAction.id }).expect(404);
        await x.cancel(created.id, '"1"').expect(404);
        await x.cancel(created.id, null).expect(404);
        const listed = await x.list().expect(200);
        expect(listed.body.data.map((a: { id: string }) => a.id)).not.toContain(created.id);
      }
      const after = await c.get(created.id).expect(200);
      expect(after.body).toEqual(created);
      expect(await countRows(t.dataSource, 'authorizations', other.organizationId)).toBe(0);
    });

    it('requires an API key', async () => {
      await request(t.app).get(BASE).expect(401);
      await request(t.app).post(BASE).send(createBody(tenant)).expect(401);
      await request(t.app).post(`${ALT_BASE}/auth_x/cancel`).expect(401);
    });

    it('answers 405 to methods a path does not serve', async () => {
      const id = (await c.create(createBody(tenant)).expect(201)).body.id;
      const res = await request(t.app)
        .put(`${BASE}/${id}`)
        .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
        .expect(405);
      expect(res.body.error.code).toBe('method_not_allowed');
      await request(t.app)
        .get(`${BASE}/${id}/confirm`)
        .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
        .expect(405);
    });
  });
});
