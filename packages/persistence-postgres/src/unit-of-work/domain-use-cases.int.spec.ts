import {
  AttachFileUseCase,
  CompleteFileUseCase,
  ConfirmAuthorizationUseCase,
  CreateAuthorizationUseCase,
  CreateFileUseCase,
  type BlobStore,
  type PayerCatalog,
} from '@prior-auth/domain';
import {
  clinicalNotesRequirement,
  NPI,
  PDF_BYTES as PDF,
  SELECTION,
  testPayer,
} from '@prior-auth/domain/testing';
import { RandomIdGenerator } from '@prior-auth/platform';
import type { PgBoss } from 'pg-boss';
import type { DataSource } from 'typeorm';
import { answers, questionnaire } from '../authorization/testing/authorization-builders';
import { openTestDataSource } from '../database/test-database';
import { TypeOrmProviderRegistry } from '../tenancy/typeorm-provider-registry';
import { createTestTenant, testCursors } from './testing/test-tenants';
import { startJobBoss } from '../outbox/job-queues';
import { JOB_TABLE } from '../outbox/pg-boss-job-queue';
import { TypeOrmUnitOfWork } from './typeorm-unit-of-work';
import { TypeOrmPortalAccess } from '../portal-access/typeorm-portal-access';

/** The domain's own use cases on the PostgreSQL ports: the wiring the API and the worker will use. */

const payerCatalog: PayerCatalog = {
  getPayer: async (id) => (id === 'payer_uhc' ? testPayer() : null),
  findRoute: async () => ({
    id: 'route_uhc_ca_outpatient',
    templateSelection: SELECTION,
    portalAuthModes: ['automated'],
    questionnaire: questionnaire(),
    documentRequirements: [clinicalNotesRequirement()],
  }),
};

/** Every object "uploaded" holds the PDF bytes. */
const blobStore: BlobStore = {
  createUploadTarget: async (key) => ({ url: `https://uploads.example/${key}` }),
  createDownloadUrl: async (key) => `https://downloads.example/${key}`,
  stat: async () => ({ sizeBytes: PDF.length }),
  readHead: async () => PDF,
  checksumSha256: async () => 'ab'.repeat(32),
  promote: async () => undefined,
  put: async (_key, bytes) => ({ sizeBytes: bytes.length, checksumSha256: 'ab'.repeat(32) }),
  delete: async () => undefined,
};

let dataSource: DataSource;
let boss: PgBoss;
let deps: ConstructorParameters<typeof CreateAuthorizationUseCase>[0] & { blobStore: BlobStore };

beforeAll(async () => {
  dataSource = await openTestDataSource(4);
  boss = await startJobBoss({ connectionString: process.env.DATABASE_URL!, role: 'producer', poolSize: 1 });
  deps = {
    unitOfWork: new TypeOrmUnitOfWork(dataSource, {
      cursors: testCursors(),
      jobBoss: boss,
      defaultActor: 'test',
    }),
    clock: { now: () => new Date() },
    ids: new RandomIdGenerator(),
    portalAccess: new TypeOrmPortalAccess(dataSource),
    providerRegistry: new TypeOrmProviderRegistry(dataSource),
    payerCatalog,
    blobStore,
  };
});
afterAll(async () => {
  await boss.stop({ graceful: false });
  await dataSource.destroy();
});

describe('domain use cases on TypeOrmUnitOfWork', () => {
  it('creates, attaches and confirms a case, leaving its events and the processing job', async () => {
    const scope = await createTestTenant(dataSource);
    await dataSource.query('INSERT INTO provider_npis (organization_id, npi) VALUES ($1, $2)', [
      scope.organizationId,
      NPI,
    ]);

    const created = await new CreateAuthorizationUseCase(deps).execute(scope, {
      providerNpi: NPI,
      templateSelection: SELECTION,
      policy: { finalSubmission: 'automatic' },
      questionnaireResponse: { item: answers() },
    });
    expect(created.status).toBe('requires_input');
    const { file } = await new CreateFileUseCase(deps).execute(scope, {
      fileName: 'notes.pdf',
      contentType: 'application/pdf',
      sizeBytes: PDF.length,
      purpose: 'authorization_attachment',
    });
    await new CompleteFileUseCase(deps).execute(scope, { fileId: file.id });
    const { authorization: attached } = await new AttachFileUseCase(deps).execute(scope, {
      authorizationId: created.id,
      expectedVersion: created.version,
      fileId: file.id,
      documentTypes: ['clinical_notes'],
      description: null,
    });
    expect(attached.status).toBe('requires_confirmation');

    const confirm = new ConfirmAuthorizationUseCase(deps);
    const stale = confirm.execute(scope, {
      authorizationId: created.id,
      expectedVersion: created.version,
      nextActionId: attached.nextAction!.id,
    });
    await expect(stale).rejects.toMatchObject({
      code: 'version_conflict',
      details: { actualVersion: attached.version },
    });
    const confirmed = await confirm.execute(scope, {
      authorizationId: created.id,
      expectedVersion: attached.version,
      nextActionId: attached.nextAction!.id,
    });
    expect(confirmed.status).toBe('processing');

    const events = await dataSource.query(
      `SELECT action AS type FROM audit_log
        WHERE organization_id = $1 AND environment = $2 AND subject_id = $3 AND details ? 'eventId' ORDER BY id`,
      [scope.organizationId, scope.environment, created.id],
    );
    expect(events.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining([
        'authorization.created',
        'authorization.attachment_added',
        'authorization.confirmed',
      ]),
    );
    const jobs = await dataSource.query(
      `SELECT name AS type FROM ${JOB_TABLE} WHERE data->>'organizationId' = $1 AND data->>'authorizationId' = $2`,
      [scope.organizationId, created.id],
    );
    expect(jobs).toEqual([{ type: 'process' }]);
    const audit = await dataSource.query('SELECT count(*)::int AS n FROM audit_log WHERE subject_id = $1', [
      created.id,
    ]);
    expect(audit[0].n).toBe(events.length);
  });

  it('refuses an NPI registered to another organization', async () => {
    const scope = await createTestTenant(dataSource);
    const other = await createTestTenant(dataSource);
    await dataSource.query('INSERT INTO provider_npis (organization_id, npi) VALUES ($1, $2)', [
      other.organizationId,
      NPI,
    ]);
    const attempt = new CreateAuthorizationUseCase(deps).execute(scope, {
      providerNpi: NPI,
      templateSelection: SELECTION,
      policy: { finalSubmission: 'automatic' },
    });
    await expect(attempt).rejects.toMatchObject({ code: 'provider_not_found' });
  });
});
