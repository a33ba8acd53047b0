import { type Authorization } from '../authorization/authorization.aggregate';
import { type AuthorizationState } from '../authorization/authorization.types';
import { File, fileStorageKey } from '../file/file.aggregate';
import { fileBlobKey } from '../file/file-storage-keys';
import { type DomainPorts } from '../ports';
import {
  type SubmissionPacket,
  type SubmissionPreviewRenderer,
} from '../ports/submission-preview-renderer.port';
import { requirementChecklist } from '../requirements/requirement-checklist';
import { type Answer, type QuestionnaireTemplate } from '../requirements/questionnaire.types';
import { type TenantScope } from '../shared/scope';
import { saveFile } from './support/aggregate-persistence.helper';

export type EnsureSubmissionPreviewDeps = Pick<DomainPorts, 'unitOfWork' | 'clock' | 'ids' | 'blobStore'> & {
  renderer: SubmissionPreviewRenderer;
};

/**
 * One preview per (case, answers version, attachments version): the file id is derived from the three, so a
 * change of answers or attachments names a new file and an unchanged case finds the one already stored.
 */
export const submissionPreviewFileId = (s: AuthorizationState): string =>
  `file_sp${s.id.replace(/^auth_/, '').replace(/[^A-Za-z0-9]/g, '')}q${s.questionnaireResponseVersion}a${s.attachmentVersion}`;

const hasBlockers = (s: AuthorizationState): boolean =>
  s.requirements.questions.length + s.requirements.documents.length + s.requirements.issues.length > 0;

function answerText(answer: Answer, template: QuestionnaireTemplate, linkId: string): string {
  if (answer.valueCoding !== undefined) {
    const item = template.groups.flatMap((g) => g.items).find((i) => i.linkId === linkId);
    const option = item?.options?.find((o) => o.code === answer.valueCoding?.code);
    return answer.valueCoding.display ?? option?.display ?? answer.valueCoding.code;
  }
  if (answer.valueQuantity !== undefined) {
    const { value, unit } = answer.valueQuantity;
    return unit === undefined ? String(value) : `${value} ${unit}`;
  }
  if (answer.valueBoolean !== undefined) return answer.valueBoolean ? 'Yes' : 'No';
  const [value] = Object.values(answer);
  return String(value);
}

const instanceKey = (linkId: string, instance: number): string => JSON.stringify([linkId, instance]);

export function submissionPacketOf(s: AuthorizationState, renderedAt: Date): SubmissionPacket {
  const attachedTypes = [...new Set(s.attachments.flatMap((a) => a.documentTypes))];
  const checklist = requirementChecklist(
    s.questionnaire,
    s.documentRequirements,
    s.questionnaireResponse,
    attachedTypes,
  );
  // By linkId, and by linkId and group instance for the questions of repeating groups.
  const given = new Map<string, Answer[]>();
  const add = (key: string, answers: Answer[]) => given.set(key, [...(given.get(key) ?? []), ...answers]);
  for (const item of s.questionnaireResponse.item) {
    add(item.linkId, item.answer);
    add(instanceKey(item.linkId, item.instance ?? 0), item.answer);
  }
  const t = s.templateSelection;
  return {
    authorizationId: s.id,
    payerName: s.payer.displayName,
    providerNpi: s.providerNpi,
    service: `${t.serviceCodeSystem.toUpperCase()} ${t.serviceCode} (${t.serviceType}, ${t.insuranceState})`,
    questionnaireTitle: s.questionnaire.title,
    answers: checklist.questions.map((q) => ({
      linkId: q.linkId,
      // A repeating group's question is listed once per instance, numbered from 1.
      question: q.instance === undefined ? q.text : `${q.text} (${q.instance + 1})`,
      values: (given.get(q.instance === undefined ? q.linkId : instanceKey(q.linkId, q.instance)) ?? []).map(
        (a) => answerText(a, s.questionnaire, q.linkId),
      ),
    })),
    attachments: s.attachments.map((a) => ({
      label: a.label,
      fileId: a.fileId,
      documentTypes: [...a.documentTypes],
    })),
    questionnaireResponseVersion: s.questionnaireResponseVersion,
    attachmentVersion: s.attachmentVersion,
    renderedAt,
  };
}

/**
 * The submission preview of a case (decision 0032): a PDF of its packet stored as a `submission_preview` File
 * of the case's tenant, or null while requirements are open. Rendered lazily, the first time it is asked for
 * after the answers or attachments changed; idempotent (an existing preview is returned as is) and atomic (the
 * bytes are stored first under a key private to this render, the file row last, so a reader never sees a file
 * without bytes; concurrent renders of the same preview keep one row and may leave an orphan blob).
 */
export class EnsureSubmissionPreviewUseCase {
  constructor(private readonly deps: EnsureSubmissionPreviewDeps) {}

  async execute(scope: TenantScope, authorization: Authorization): Promise<File | null> {
    const s = authorization.toState();
    if (hasBlockers(s)) return null;
    const fileId = submissionPreviewFileId(s);
    const read = () => this.deps.unitOfWork.run(scope, (tx) => tx.files.findById(fileId));
    const existing = await read();
    if (existing !== null) return existing;

    const now = this.deps.clock.now();
    const bytes = await this.deps.renderer.renderPdf(submissionPacketOf(s, now));
    const storageKey = fileStorageKey(scope.environment, scope.organizationId, fileId);
    const staging = fileBlobKey(storageKey, { completionAttemptId: this.deps.ids.newId('preview') });
    const stored = await this.deps.blobStore.put(staging, bytes, { contentType: 'application/pdf' });
    await this.deps.blobStore.promote(
      staging,
      fileBlobKey(storageKey, { checksumSha256: stored.checksumSha256 }),
    );
    await this.deps.blobStore.delete(staging);
    try {
      return await this.deps.unitOfWork.run(scope, async (tx) => {
        const raced = await tx.files.findById(fileId);
        if (raced !== null) return raced;
        const file = File.recordSubmissionPreview(
          {
            id: fileId,
            ...scope,
            fileName: `submission-preview-${s.id}.pdf`,
            contentType: 'application/pdf',
            sizeBytes: stored.sizeBytes,
            checksumSha256: stored.checksumSha256,
          },
          now,
        );
        await saveFile(tx, this.deps.ids, file);
        return file;
      });
    } catch (error) {
      // A concurrent render saved the same preview first: its row is the answer.
      const winner = await read();
      if (winner !== null) return winner;
      throw error;
    }
  }
}
