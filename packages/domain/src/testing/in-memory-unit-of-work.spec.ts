import { File } from '../file/file.aggregate';
import { VersionConflictError } from '../shared/domain-error';
import { InMemoryUnitOfWork } from './in-memory-unit-of-work';
import { OTHER_SCOPE, SCOPE } from './use-case.harness';

const NOW = new Date('2026-03-02T09:00:00.000Z');
const newFile = (): File =>
  File.create(
    {
      organizationId: SCOPE.organizationId,
      environment: SCOPE.environment,
      fileName: 'a.pdf',
      contentType: 'application/pdf',
      purpose: 'authorization_attachment',
      sizeBytes: 10,
    },
    { now: NOW, newId: () => 'file_1' },
  );
const upload = { storedSizeBytes: 10, sniffedContentType: 'application/pdf', checksumSha256: 'c' };

describe('InMemoryUnitOfWork', () => {
  it('inserts once, then updates only from the persisted version', async () => {
    const uow = new InMemoryUnitOfWork();
    await uow.run(SCOPE, (tx) => tx.files.save(newFile()));
    await expect(uow.run(SCOPE, (tx) => tx.files.save(newFile()))).rejects.toBeInstanceOf(
      VersionConflictError,
    );

    const a = (await uow.run(SCOPE, (tx) => tx.files.findById('file_1')))!;
    const b = (await uow.run(SCOPE, (tx) => tx.files.findById('file_1')))!;
    a.complete(upload, NOW);
    await uow.run(SCOPE, (tx) => tx.files.save(a));
    b.complete(upload, NOW);
    await expect(uow.run(SCOPE, (tx) => tx.files.save(b))).rejects.toMatchObject({
      code: 'version_conflict',
      details: { expectedVersion: 1, actualVersion: 2 },
    });
  });

  it('lets only one of two overlapping transactions commit', async () => {
    const uow = new InMemoryUnitOfWork();
    await uow.run(SCOPE, (tx) => tx.files.save(newFile()));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = uow.run(SCOPE, async (tx) => {
      const file = (await tx.files.findById('file_1'))!;
      file.complete(upload, NOW);
      await tx.files.save(file);
      await gate;
    });
    await uow.run(SCOPE, async (tx) => {
      const file = (await tx.files.findById('file_1'))!;
      file.complete(upload, NOW);
      await tx.files.save(file);
    });
    release();
    await expect(slow).rejects.toBeInstanceOf(VersionConflictError);
  });

  it('keeps nothing of a transaction that throws, and keeps tenants apart', async () => {
    const uow = new InMemoryUnitOfWork();
    await expect(
      uow.run(SCOPE, async (tx) => {
        await tx.files.save(newFile());
        await tx.jobs.enqueue({ type: 'process', authorizationId: 'auth_1' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await uow.run(SCOPE, (tx) => tx.files.findById('file_1'))).toBeNull();
    expect(uow.tenant(SCOPE).jobs).toEqual([]);

    await uow.run(SCOPE, (tx) => tx.files.save(newFile()));
    expect(await uow.run(OTHER_SCOPE, (tx) => tx.files.findById('file_1'))).toBeNull();
  });
});
