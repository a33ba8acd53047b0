import { type File } from '../file/file.aggregate';
import { SNIFF_HEAD_BYTES, sniffContentType } from '../file/sniff-content-type';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { loadFile } from './support/aggregate-loading.helper';
import { saveFile } from './support/aggregate-persistence.helper';

export type CompleteFileDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'blobStore'>;

/**
 * Step 3 of the upload flow: checks the stored bytes (size, real type by magic number) against what was
 * declared. A failed check leaves the file pending, so the client may upload again while the URL is valid.
 */
export class CompleteFileUseCase {
  constructor(private readonly deps: CompleteFileDeps) {}

  execute(scope: TenantScope, command: { fileId: string }): Promise<File> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const file = await loadFile(tx, command.fileId);
      const blobs = this.deps.blobStore;
      const stored = file.status === 'ready' ? null : await blobs.stat(file.storageKey);
      const sniffed =
        stored === null ? null : sniffContentType(await blobs.readHead(file.storageKey, SNIFF_HEAD_BYTES));
      // Hashing reads every byte: only worth it when the upload is going to be accepted.
      const acceptable = stored?.sizeBytes === file.sizeBytes && sniffed === file.contentType;
      file.complete(
        {
          storedSizeBytes: stored?.sizeBytes ?? null,
          sniffedContentType: sniffed,
          checksumSha256: acceptable ? await blobs.checksumSha256(file.storageKey) : null,
        },
        this.deps.clock.now(),
      );
      await saveFile(tx, this.deps.ids, file);
      return file;
    });
  }
}
