import { type File } from '../file/file.aggregate';
import { fileBlobKey } from '../file/file-storage-keys';
import { SNIFF_HEAD_BYTES, sniffContentType } from '../file/sniff-content-type';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { loadFile } from './support/aggregate-loading.helper';
import { saveFile } from './support/aggregate-persistence.helper';

export type CompleteFileDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'blobStore'>;

/**
 * Step 3 of the upload flow: checks the stored bytes (size, real type by magic number) against what was
 * declared. A failed check leaves the file pending, so the client may upload again while the URL is valid.
 *
 * The upload URL stays valid after completion, so the staged object may change at any time: the checks run
 * on a copy private to this attempt, and only that checked copy becomes the file's content (`fileBlobKey`).
 */
export class CompleteFileUseCase {
  constructor(private readonly deps: CompleteFileDeps) {}

  execute(scope: TenantScope, command: { fileId: string }): Promise<File> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const file = await loadFile(tx, command.fileId);
      const blobs = this.deps.blobStore;
      let checked: string | null = null;
      if (file.status !== 'ready' && (await blobs.stat(file.storageKey)) !== null) {
        checked = fileBlobKey(file.storageKey, { completionAttemptId: this.deps.ids.newId('completion') });
        await blobs.promote(file.storageKey, checked);
      }
      try {
        const stored = checked === null ? null : await blobs.stat(checked);
        const sniffed =
          checked === null || stored === null
            ? null
            : sniffContentType(await blobs.readHead(checked, SNIFF_HEAD_BYTES));
        // Hashing reads every byte: only worth it when the upload is going to be accepted.
        const acceptable = stored?.sizeBytes === file.sizeBytes && sniffed === file.contentType;
        const checksumSha256 = acceptable && checked !== null ? await blobs.checksumSha256(checked) : null;
        if (checked !== null && checksumSha256 !== null) {
          await blobs.promote(checked, fileBlobKey(file.storageKey, { checksumSha256 }));
        }
        file.complete(
          { storedSizeBytes: stored?.sizeBytes ?? null, sniffedContentType: sniffed, checksumSha256 },
          this.deps.clock.now(),
        );
        await saveFile(tx, this.deps.ids, file);
        return file;
      } finally {
        if (checked !== null) await blobs.delete(checked);
      }
    });
  }
}
