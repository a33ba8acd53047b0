import { type Authorization } from '../../authorization/authorization.aggregate';
import { type File } from '../../file/file.aggregate';
import { type ManualHandoff } from '../../manual-handoff/manual-handoff.aggregate';
import { DomainError } from '../../shared/domain-error';
import { type TransactionalPorts } from '../../ports/unit-of-work.port';

export const authorizationNotFound = (authorizationId: string): DomainError =>
  new DomainError('authorization_not_found', 'The authorization does not exist.', { authorizationId });

export async function loadAuthorization(
  tx: TransactionalPorts,
  authorizationId: string,
): Promise<Authorization> {
  const authorization = await tx.authorizations.findById(authorizationId);
  if (authorization === null) throw authorizationNotFound(authorizationId);
  return authorization;
}

export async function loadFile(tx: TransactionalPorts, fileId: string): Promise<File> {
  const file = await tx.files.findById(fileId);
  if (file === null) throw new DomainError('file_not_found', 'The file does not exist.', { fileId });
  return file;
}

/** A handoff is addressed under its authorization; one filed under another authorization does not exist here. */
export async function loadManualHandoff(
  tx: TransactionalPorts,
  authorizationId: string,
  manualHandoffId: string,
): Promise<ManualHandoff> {
  const handoff = await tx.manualHandoffs.findById(manualHandoffId);
  if (handoff === null || handoff.authorizationId !== authorizationId) {
    throw new DomainError('manual_handoff_not_found', 'The manual handoff does not exist.', {
      manualHandoffId,
    });
  }
  return handoff;
}
