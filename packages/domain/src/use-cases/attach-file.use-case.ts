import { type Authorization } from '../authorization/authorization.aggregate';
import { type Attachment } from '../authorization/authorization.types';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization, loadFile } from './support/aggregate-loading.helper';
import { saveAuthorization } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';

export interface AttachFileCommand {
  authorizationId: string;
  expectedVersion: number;
  fileId: string;
  documentTypes: string[];
  description: string | null;
}

export type AttachFileDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids'>;

/** Links a ready file of the same tenant; the attachment's label is the file's name. */
export class AttachFileUseCase {
  constructor(private readonly deps: AttachFileDeps) {}

  execute(
    scope: TenantScope,
    command: AttachFileCommand,
  ): Promise<{ authorization: Authorization; attachment: Attachment }> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await loadAuthorization(tx, command.authorizationId);
      authorization.assertVersion(command.expectedVersion);
      const file = await loadFile(tx, command.fileId);
      file.assertAttachable();
      const attachment = authorization.attachFile(
        {
          fileId: file.id,
          documentTypes: command.documentTypes,
          label: file.fileName,
          description: command.description,
        },
        authorizationContext(this.deps),
      );
      await saveAuthorization(tx, this.deps.ids, authorization);
      return { authorization, attachment };
    });
  }
}
