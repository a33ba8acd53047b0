import { File, VersionConflictError, type TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
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

const newFile = (scope: TenantScope, now = new Date('2026-03-02T09:00:00.000Z')) =>
  File.create(
    {
      ...scope,
      fileName: 'scan.png',
      contentType: 'image/png',
      purpose: 'authorization_attachment',
      sizeBytes: 512,
    },
    { now, newId: (prefix) => `${prefix}_${uniqueSuffix()}` },
  );

const load = (scope: TenantScope, id: string) => unitOfWork.run(scope, (tx) => tx.files.findById(id));

describe('TypeOrmFileRepository', () => {
  it('round-trips a pending and a ready file', async () => {
    const scope = await createTestTenant(dataSource);
    const file = newFile(scope);
    await unitOfWork.run(scope, (tx) => tx.files.save(file));
    expect((await load(scope, file.id))!.toState()).toEqual(file.toState());

    const loaded = (await load(scope, file.id))!;
    loaded.complete(
      { storedSizeBytes: 512, sniffedContentType: 'image/png', checksumSha256: 'cd'.repeat(32) },
      new Date('2026-03-02T09:03:00.000Z'),
    );
    await unitOfWork.run(scope, (tx) => tx.files.save(loaded));
    const ready = (await load(scope, file.id))!;
    expect(ready.toState()).toEqual(loaded.toState());
    expect(ready.status).toBe('ready');
    expect(ready.persistedVersion).toBe(2);
  });

  it('refuses a concurrent completion of the same version', async () => {
    const scope = await createTestTenant(dataSource);
    const file = newFile(scope);
    await unitOfWork.run(scope, (tx) => tx.files.save(file));
    const first = (await load(scope, file.id))!;
    const second = (await load(scope, file.id))!;
    const upload = { storedSizeBytes: 512, sniffedContentType: 'image/png', checksumSha256: 'ef'.repeat(32) };
    first.complete(upload, new Date());
    second.complete(upload, new Date());
    await unitOfWork.run(scope, (tx) => tx.files.save(first));
    const failure = unitOfWork.run(scope, (tx) => tx.files.save(second));
    await expect(failure).rejects.toBeInstanceOf(VersionConflictError);
    await expect(unitOfWork.run(scope, (tx) => tx.files.save(second))).rejects.toMatchObject({
      expectedVersion: 1,
      actualVersion: 2,
    });
  });

  it('lists one tenant’s files newest first, and nobody else’s', async () => {
    const scope = await createTestTenant(dataSource);
    const other = await createTestTenant(dataSource);
    const files = [0, 1, 2, 3, 4].map((minute) => newFile(scope, new Date(Date.UTC(2026, 2, 2, 9, minute))));
    await unitOfWork.run(scope, async (tx) => {
      for (const file of files) await tx.files.save(file);
    });
    await unitOfWork.run(other, (tx) => tx.files.save(newFile(other)));

    const first = await unitOfWork.run(scope, (tx) => tx.files.list({ limit: 3 }));
    const second = await unitOfWork.run(scope, (tx) =>
      tx.files.list({ limit: 3, cursor: first.nextCursor! }),
    );
    expect([...first.items, ...second.items].map((f) => f.id)).toEqual([...files].reverse().map((f) => f.id));
    expect(second.nextCursor).toBeNull();
    expect(await load(other, files[0]!.id)).toBeNull();
    await expect(
      unitOfWork.run(other, (tx) => tx.files.list({ limit: 3, cursor: first.nextCursor! })),
    ).rejects.toMatchObject({
      code: 'invalid_cursor',
    });
  });
});
