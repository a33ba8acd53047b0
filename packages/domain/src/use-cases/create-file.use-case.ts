import { File } from '../file/file.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { saveFile } from './support/aggregate-persistence.helper';
import { plainContext } from './support/authorization-context.factory';

export interface CreateFileCommand {
  fileName: string;
  contentType: string;
  sizeBytes: number;
  purpose: string;
}

export type CreateFileDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'blobStore'>;

/** Step 1 of the upload flow: the record plus a signed upload target, valid until `uploadExpiresAt`. */
export class CreateFileUseCase {
  constructor(private readonly deps: CreateFileDeps) {}

  async execute(scope: TenantScope, command: CreateFileCommand): Promise<{ file: File; uploadUrl: string }> {
    const file = File.create({ ...command, ...scope }, plainContext<'file'>(this.deps));
    const { url } = await this.deps.blobStore.createUploadTarget(file.storageKey, {
      contentType: file.contentType,
      sizeBytes: file.sizeBytes,
      expiresAt: file.uploadExpiresAt,
    });
    await this.deps.unitOfWork.run(scope, (tx) => saveFile(tx, this.deps.ids, file));
    return { file, uploadUrl: url };
  }
}
