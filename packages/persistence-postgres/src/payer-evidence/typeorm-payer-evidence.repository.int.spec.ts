import { File, type PayerEvidenceRecord, type TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { arrange } from '../authorization/testing/authorization-builders';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, testCursors, uniqueSuffix } from '../unit-of-work/testing/test-tenants';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';

let dataSource: DataSource;
let unitOfWork: TypeOrmUnitOfWork;

beforeAll(async () => {
  dataSource = await openTestDataSource(4);
  unitOfWork = new TypeOrmUnitOfWork(dataSource, { cursors: testCursors() });
});
afterAll(() => dataSource.destroy());

/** A stored case of `scope` and one payer_evidence file of it, as the pipeline records them. */
async function caseWithEvidenceFile(scope: TenantScope) {
  const { authorization, files } = arrange(scope, 'waiting_on_payer');
  const evidence = File.recordPayerEvidence(
    {
      id: `file_${uniqueSuffix()}`,
      ...scope,
      fileName: 'confirmation-confirmation_image.png',
      contentType: 'image/png',
      sizeBytes: 2048,
      checksumSha256: 'cd'.repeat(32),
    },
    new Date('2026-03-02T09:31:00.000Z'),
  );
  await unitOfWork.run(scope, async (tx) => {
    for (const file of [...files, evidence]) await tx.files.save(file);
    await tx.authorizations.save(authorization);
  });
  return { authorization, file: evidence };
}

const record = (authorizationId: string, fileId: string, capturedAt: string): PayerEvidenceRecord => ({
  id: `evd_${uniqueSuffix()}`,
  authorizationId,
  kind: 'confirmation_image',
  step: 'confirmation',
  capturedAt: new Date(capturedAt),
  fileId,
  blobKey: `sandbox/org/content/${fileId}/sha256-${'cd'.repeat(32)}`,
  recordedAt: new Date('2026-03-02T09:31:00.000Z'),
});

describe('TypeOrmPayerEvidenceRepository', () => {
  it('round-trips rows oldest capture first, only within the tenant', async () => {
    const scope = await createTestTenant(dataSource);
    const { authorization, file } = await caseWithEvidenceFile(scope);
    const later = record(authorization.id, file.id, '2026-03-02T09:30:30.000Z');
    const earlier = {
      ...record(authorization.id, file.id, '2026-03-02T09:30:00.000Z'),
      kind: 'step_screenshot' as const,
      step: 'review',
    };
    await unitOfWork.run(scope, (tx) => tx.payerEvidence.add([later, earlier]));

    const listed = await unitOfWork.run(scope, (tx) =>
      tx.payerEvidence.listByAuthorization(authorization.id),
    );
    expect(listed).toEqual([earlier, later]);
    const stored = await unitOfWork.run(scope, (tx) => tx.files.findById(file.id));
    expect(stored!.toState()).toEqual(file.toState());

    const otherEnvironment: TenantScope = { ...scope, environment: 'production' };
    await expect(
      unitOfWork.run(otherEnvironment, (tx) => tx.payerEvidence.listByAuthorization(authorization.id)),
    ).resolves.toEqual([]);
    await expect(unitOfWork.run(otherEnvironment, (tx) => tx.files.findById(file.id))).resolves.toBeNull();
  });

  it('refuses a row naming a file or a case of another tenant', async () => {
    const scope = await createTestTenant(dataSource);
    const other = await createTestTenant(dataSource);
    const mine = await caseWithEvidenceFile(scope);
    const theirs = await caseWithEvidenceFile(other);

    await expect(
      unitOfWork.run(scope, (tx) =>
        tx.payerEvidence.add([record(mine.authorization.id, theirs.file.id, '2026-03-02T09:30:00.000Z')]),
      ),
    ).rejects.toThrow();
    await expect(
      unitOfWork.run(scope, (tx) =>
        tx.payerEvidence.add([record(theirs.authorization.id, mine.file.id, '2026-03-02T09:30:00.000Z')]),
      ),
    ).rejects.toThrow();
    await expect(
      unitOfWork.run(scope, (tx) => tx.payerEvidence.listByAuthorization(mine.authorization.id)),
    ).resolves.toEqual([]);
  });
});
