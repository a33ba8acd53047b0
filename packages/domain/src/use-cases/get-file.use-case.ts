import { type File } from '../file/file.aggregate';
import { fileBlobKey } from '../file/file-storage-keys';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { loadFile } from './support/aggregate-loading.helper';

/** Short-lived: the download URL is a bearer capability (decision 0027). */
export const FILE_DOWNLOAD_URL_TTL_MS = 5 * 60 * 1000;

export type GetFileDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'blobStore'>;

export class GetFileUseCase {
  constructor(private readonly deps: GetFileDeps) {}

  async execute(
    scope: TenantScope,
    query: { fileId: string },
  ): Promise<{ file: File; downloadUrl: string | null }> {
    const file = await this.deps.unitOfWork.run(scope, (tx) => loadFile(tx, query.fileId));
    const { checksumSha256 } = file.toState();
    if (file.status !== 'ready' || checksumSha256 === null) return { file, downloadUrl: null };
    const expiresAt = new Date(this.deps.clock.now().getTime() + FILE_DOWNLOAD_URL_TTL_MS);
    // The verified copy, never the staged upload, which the still-valid upload URL can overwrite.
    const key = fileBlobKey(file.storageKey, { checksumSha256 });
    return { file, downloadUrl: await this.deps.blobStore.createDownloadUrl(key, expiresAt) };
  }
}
