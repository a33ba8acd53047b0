import { DomainError } from '../shared/domain-error';
import type { DocumentRequirement } from '../requirements/questionnaire.types';
import { authorizationIn, crossBoundary, testDecision, testReceipt } from './testing/authorization.fixtures';

/* Payer requests for more information and submission attempts (decision 0032). */

const labResults: DocumentRequirement = {
  type: 'lab_results',
  label: 'Lab results',
  message: 'The payer asks for the latest lab results.',
};
const labFile = { fileId: 'file_lab', documentTypes: ['lab_results'], label: 'labs.pdf', description: null };

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  throw new Error('expected a DomainError');
};

const moreInformationRequested = () => {
  const arranged = authorizationIn('waiting_on_payer');
  arranged.auth.requestMoreInformation(labResults, arranged.ctx);
  return arranged;
};

describe('submission attempts', () => {
  it('open at the boundary, are accepted with the receipt and confirmed by the decision', () => {
    const { auth, ctx } = authorizationIn('processing');
    expect(auth.submission.attempts).toEqual([]);
    crossBoundary(auth, ctx);
    expect(auth.submission.attempts).toEqual([
      expect.objectContaining({ status: 'pending', submissionReference: null, acceptedAt: null }),
    ]);
    auth.recordReceipt(testReceipt(ctx.now), ctx);
    expect(auth.submission.attempts[0]).toMatchObject({
      status: 'accepted',
      submissionReference: 'REF-001',
      acceptedAt: ctx.now,
    });
    auth.recordDecision(testDecision(), ctx);
    expect(auth.submission.attempts[0]).toMatchObject({
      status: 'confirmed',
      confirmedAt: testDecision().receivedAt,
    });
  });

  it('fail with the case, and a new one opens after a request for more information', () => {
    const { auth, ctx } = moreInformationRequested();
    expect(auth.submission.attempts.map((a) => a.status)).toEqual(['accepted']);
    auth.attachFile(labFile, ctx);
    auth.confirm(auth.nextAction?.id, ctx);
    crossBoundary(auth, ctx);
    expect(auth.submission.attempts.map((a) => a.status)).toEqual(['accepted', 'pending']);
    auth.fail({ code: 'payer_rejected_submission', message: 'Rejected.', details: {} }, ctx);
    expect(auth.submission.attempts[1]).toMatchObject({
      status: 'failed',
      errorCode: 'payer_rejected_submission',
      errorMessage: 'Rejected.',
    });
  });
});

describe('payer requests for more information', () => {
  it('are recorded open and resolved by the resolve that moves the case on', () => {
    const { auth, ctx } = moreInformationRequested();
    const [request] = auth.submission.payerRequests;
    expect(request).toMatchObject({ status: 'open', documentType: 'lab_results', resolvedAt: null });
    const attachment = auth.attachFile(labFile, ctx);
    const before = auth.version;
    auth.resolvePayerRequest(
      { requestId: request!.id, attachmentIds: [attachment.id], resolutionNote: 'Attached.' },
      ctx,
    );
    expect(auth.version).toBe(before + 1);
    expect(auth.status).toBe('processing');
    expect(auth.submission.payerRequests[0]).toMatchObject({
      status: 'resolved',
      resolutionNote: 'Attached.',
      attachmentIds: [attachment.id],
      resolvedAt: ctx.now,
    });
  });

  it('are resolved by a plain confirm too, without a note', () => {
    const { auth, ctx } = moreInformationRequested();
    auth.attachFile(labFile, ctx);
    auth.confirm(auth.nextAction?.id, ctx);
    expect(auth.submission.payerRequests[0]).toMatchObject({ status: 'resolved', resolutionNote: null });
  });

  it('refuse an unknown request, unknown attachments, attachments that miss the document, a resolved one', () => {
    const { auth, ctx } = moreInformationRequested();
    const requestId = auth.submission.payerRequests[0]!.id;
    const routeAttachment = auth.attachments[0]!.id;
    const resolve = (id: string, attachmentIds: string[]) => () =>
      auth.resolvePayerRequest({ requestId: id, attachmentIds, resolutionNote: null }, ctx);
    expect(codeOf(resolve('req_unknown', [routeAttachment]))).toBe('action_not_found');
    expect(codeOf(resolve(requestId, ['att_unknown']))).toBe('attachment_not_found');
    expect(codeOf(resolve(requestId, [routeAttachment]))).toBe('requirements_not_satisfied');
    const lab = auth.attachFile(labFile, ctx);
    const version = auth.version;
    expect(codeOf(resolve(requestId, [routeAttachment]))).toBe('requirements_not_satisfied');
    expect(auth.version).toBe(version);
    resolve(requestId, [lab.id])();
    expect(codeOf(resolve(requestId, [lab.id]))).toBe('action_not_open');
  });
});
