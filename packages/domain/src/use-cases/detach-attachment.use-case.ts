import { type Authorization } from '../authorization/authorization.aggregate';
import { type DomainPorts } from '../ports';
import { type TenantScope } from '../shared/scope';
import { loadAuthorization } from './support/aggregate-loading.helper';
import { saveAuthorization } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';

export interface DetachAttachmentCommand {
  authorizationId: string;
  expectedVersion: number;
  attachmentId: string;
}

export type DetachAttachmentDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids'>;

/** Unlinks the attachment only; the file stays and may be attached again. */
export class DetachAttachmentUseCase {
  constructor(private readonly deps: DetachAttachmentDeps) {}

  execute(scope: TenantScope, command: DetachAttachmentCommand): Promise<Authorization> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const authorization = await loadAuthorization(tx, command.authorizationId);
      authorization.assertVersion(command.expectedVersion);
      authorization.detachAttachment(command.attachmentId, authorizationContext(this.deps));
      await saveAuthorization(tx, this.deps.ids, authorization);
      return authorization;
    });
  }
}
