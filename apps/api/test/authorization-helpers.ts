import {
  evaluateRequirements,
  type Authorization,
  type AuthorizationContext,
  type QuestionnaireResponseItem,
  type TenantScope,
} from '@prior-auth/domain';
import { completeAnswers } from '@prior-auth/domain/testing';
import { KeysetCursors, TypeOrmUnitOfWork } from '@prior-auth/persistence-postgres';
import { RandomIdGenerator, TokenSigner } from '@prior-auth/platform';
import type { Express } from 'express';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { uploadFile } from './file-helpers';
import type { TestTenant } from './test-app';

/** A sandbox route of the shipped catalog: UnitedHealthcare, California, CPAP device (HCPCS E0601). */
export const CPAP_SELECTION = {
  payerId: 'payer_uhc',
  insuranceState: 'CA',
  serviceType: 'outpatient',
  serviceCode: 'E0601',
  serviceCodeSystem: 'hcpcs',
} as const;

/**
 * Answers to every question of the CPAP template (persistence-postgres catalog data): with these, only the
 * documents `clinical_notes` and `sleep_study_report` remain.
 */
export const COMPLETE_CPAP_ANSWERS: QuestionnaireResponseItem[] = [
  ...completeAnswers(),
  { linkId: 'request.diagnosisCode', answer: [{ valueString: 'G47.33' }] },
  { linkId: 'clinical.sleepStudyType', answer: [{ valueCoding: { code: 'psg' } }] },
  { linkId: 'clinical.sleepStudyDate', answer: [{ valueDate: '2026-01-10' }] },
  { linkId: 'clinical.apneaHypopneaIndex', answer: [{ valueDecimal: 22 }] },
  { linkId: 'clinical.faceToFaceDate', answer: [{ valueDate: '2026-01-15' }] },
  { linkId: 'clinical.priorPapUse', answer: [{ valueBoolean: false }] },
];

export const CPAP_DOCUMENT_TYPES = ['clinical_notes', 'sleep_study_report'];

export const createBody = (tenant: TestTenant, overrides: Record<string, unknown> = {}) => ({
  providerNpi: tenant.npi,
  templateSelection: { ...CPAP_SELECTION },
  policy: { finalSubmission: 'automatic' },
  ...overrides,
});

let keyCounter = 0;
/** A fresh Idempotency-Key (unique across parallel test files). */
export const newKey = (): string => `test-key-${process.pid}-${Date.now()}-${(keyCounter += 1)}`;

export const BASE = '/v1/prior-auth/authorizations';
export const ALT_BASE = '/v1/prior-authorizations';

/** supertest calls with one API key. */
export function client(app: Express, apiKey: string) {
  const auth = { Authorization: `Bearer ${apiKey}` };
  return {
    app,
    apiKey,
    /** A file of this key's tenant through the real upload flow (create → PUT → complete unless not ready). */
    uploadFile: (options: Parameters<typeof uploadFile>[2] = {}) => uploadFile(app, apiKey, options),
    create: (body: unknown, key: string | null = newKey(), base = BASE) => {
      const req = request(app).post(base).set(auth);
      if (key !== null) req.set('Idempotency-Key', key);
      return req.send(body as object);
    },
    get: (id: string, base = BASE) => request(app).get(`${base}/${id}`).set(auth),
    list: (query = '', base = BASE) => request(app).get(`${base}${query}`).set(auth),
    patch: (id: string, ifMatch: string | null, body: unknown, base = BASE) => {
      const req = request(app).patch(`${base}/${id}/answers`).set(auth);
      if (ifMatch !== null) req.set('If-Match', ifMatch);
      return req.send(body as object);
    },
    attach: (
      id: string,
      ifMatch: string | null,
      body: unknown,
      key: string | null = newKey(),
      base = BASE,
    ) => {
      const req = request(app).post(`${base}/${id}/attachments`).set(auth);
      if (ifMatch !== null) req.set('If-Match', ifMatch);
      if (key !== null) req.set('Idempotency-Key', key);
      return req.send(body as object);
    },
    detach: (id: string, attachmentId: string, ifMatch: string | null, base = BASE) => {
      const req = request(app).delete(`${base}/${id}/attachments/${attachmentId}`).set(auth);
      if (ifMatch !== null) req.set('If-Match', ifMatch);
      return req;
    },
    confirm: (
      id: string,
      ifMatch: string | null,
      body: unknown,
      key: string | null = newKey(),
      base = BASE,
    ) => {
      const req = request(app).post(`${base}/${id}/confirm`).set(auth);
      if (ifMatch !== null) req.set('If-Match', ifMatch);
      if (key !== null) req.set('Idempotency-Key', key);
      return body === undefined ? req : req.send(body as object);
    },
    cancel: (id: string, ifMatch: string | null, key: string | null = newKey(), base = BASE) => {
      const req = request(app).post(`${base}/${id}/cancel`).set(auth);
      if (ifMatch !== null) req.set('If-Match', ifMatch);
      if (key !== null) req.set('Idempotency-Key', key);
      return req;
    },
  };
}

export type Client = ReturnType<typeof client>;

export const sandboxScope = (tenant: TestTenant): TenantScope => ({
  organizationId: tenant.organizationId,
  environment: 'sandbox',
});

const unitOfWork = (dataSource: DataSource) =>
  new TypeOrmUnitOfWork(dataSource, {
    cursors: new KeysetCursors(new TokenSigner('test-signing-secret-test-signing-secret')),
  });

/**
 * What the worker would do next (the pipeline is another issue): load the authorization, apply `change`
 * through the aggregate, save it with an optimistic version check.
 */
export async function asWorker(
  dataSource: DataSource,
  scope: TenantScope,
  authorizationId: string,
  change: (authorization: Authorization, ctx: AuthorizationContext) => void,
): Promise<void> {
  const ids = new RandomIdGenerator();
  await unitOfWork(dataSource).run(scope, async (tx) => {
    const authorization = await tx.authorizations.findById(authorizationId);
    if (authorization === null) throw new Error(`no authorization ${authorizationId}`);
    change(authorization, {
      now: new Date(),
      newId: (prefix) => ids.newId(prefix),
      evaluate: evaluateRequirements,
    });
    await tx.authorizations.save(authorization);
    authorization.pullEvents();
  });
}

/** Rows of `table` belonging to the organization (every tenant table has organization_id). */
export async function countRows(
  dataSource: DataSource,
  table: string,
  organizationId: string,
): Promise<number> {
  const rows = await dataSource.query(
    `SELECT count(*)::int AS count FROM ${table} WHERE organization_id = $1`,
    [organizationId],
  );
  return rows[0].count as number;
}

/**
 * A sandbox authorization in requires_confirmation (every answer given, both documents attached), as the API
 * returns it.
 */
export async function readyToConfirm(
  c: Client,
  tenant: TestTenant,
  policy: 'automatic' | 'requires_confirmation' = 'automatic',
  memberId?: string,
  overrides: Record<string, unknown> = {},
) {
  const answers = COMPLETE_CPAP_ANSWERS.map((item) =>
    item.linkId === 'patient.memberId' && memberId !== undefined
      ? { linkId: item.linkId, answer: [{ valueString: memberId }] }
      : item,
  );
  const created = await c
    .create(
      createBody(tenant, {
        policy: { finalSubmission: policy },
        questionnaireResponse: { item: answers },
        ...overrides,
      }),
    )
    .expect(201);
  const file = await c.uploadFile();
  const attached = await c
    .attach(created.body.id, `"${created.body.version}"`, {
      fileId: file.id,
      documentTypes: CPAP_DOCUMENT_TYPES,
    })
    .expect(200);
  expect(attached.body.status).toBe('requires_confirmation');
  return { authorization: attached.body, file };
}
