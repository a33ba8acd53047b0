import { type Authorization } from '../../authorization/authorization.aggregate';
import { fileBlobKey } from '../../file/file-storage-keys';
import { type PortalCase } from '../../ports/payer-portal.port';
import { type TransactionalPorts } from '../../ports/unit-of-work.port';

/** The portal's read-only view of an authorization, with where each attached document's bytes are. */
export async function buildPortalCase(
  tx: TransactionalPorts,
  authorization: Authorization,
): Promise<PortalCase> {
  const state = authorization.toState();
  const attachments = await Promise.all(
    state.attachments.map(async (attachment) => {
      const file = await tx.files.findById(attachment.fileId);
      // Attachments only ever reference files of the same tenant, and files are never deleted.
      if (file === null) throw new Error(`Attachment ${attachment.id} references a missing file.`);
      // Only ready files are attached; the portal reads the verified copy, never the staged upload.
      const { checksumSha256 } = file.toState();
      if (checksumSha256 === null) {
        throw new Error(`Attachment ${attachment.id} references a file that is not ready.`);
      }
      return {
        attachmentId: attachment.id,
        fileId: attachment.fileId,
        documentTypes: [...attachment.documentTypes],
        label: attachment.label,
        contentType: file.contentType,
        storageKey: fileBlobKey(file.storageKey, { checksumSha256 }),
      };
    }),
  );
  return {
    authorizationId: state.id,
    organizationId: state.organizationId,
    environment: state.environment,
    routeId: state.routeId,
    templateSelection: state.templateSelection,
    providerNpi: state.providerNpi,
    questionnaireResponse: state.questionnaireResponse,
    attachments,
    portalAuthMode: state.portalAuthMode,
    receipt:
      state.submission.payerReceipt === null
        ? null
        : {
            referenceNumber: state.submission.payerReceipt.referenceNumber,
            receivedAt: new Date(state.submission.payerReceipt.receivedAt),
          },
  };
}

/**
 * The key one payer submission is made (and looked up) with. It names the crossing of the final boundary, so
 * a retried or reconciled submission reuses it, while the resubmission after a payer's request for more
 * information (which re-opens the boundary) gets a new one.
 */
export const submissionIdempotencyKey = (authorization: Authorization): string => {
  const crossedAt = authorization.finalBoundaryCrossedAt;
  return `${authorization.id}:${crossedAt === null ? 'not-crossed' : crossedAt.getTime().toString(36)}`;
};
