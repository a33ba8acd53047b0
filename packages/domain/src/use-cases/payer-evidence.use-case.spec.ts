import { testDecision } from '../authorization/testing/authorization.fixtures';
import { fileBlobKey } from '../file/file-storage-keys';
import { type PortalEvidence } from '../ports/payer-portal.port';
import { DomainError } from '../shared/domain-error';
import { createHarness, OTHER_SCOPE, SCOPE, scriptedReceipt, type Harness } from '../testing';
import { AttachFileUseCase } from './attach-file.use-case';
import { CreateFileUseCase } from './create-file.use-case';
import { GetFileUseCase } from './get-file.use-case';
import { PollDecisionUseCase } from './poll-decision.use-case';
import { ProcessAuthorizationUseCase } from './process-authorization.use-case';
import { ReconcileAuthorizationUseCase } from './reconcile-authorization.use-case';
import { authorizationContext } from './support/authorization-context.factory';

let h: Harness;
beforeEach(() => {
  h = createHarness();
});

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const PDF = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37, 0x0a]);
const HTML = new TextEncoder().encode('<html><body>Reference PAYER-REF-1</body></html>');

const captured = (
  kind: PortalEvidence['kind'],
  step: string,
  contentType: string,
  bytes: Uint8Array,
): PortalEvidence => ({ kind, step, contentType, bytes, capturedAt: new Date('2026-03-02T09:29:00.000Z') });

const confirmationEvidence = (): PortalEvidence[] => [
  captured('step_screenshot', 'review', 'image/png', PNG),
  captured('confirmation_html', 'confirmation', 'text/html', HTML),
  captured('confirmation_image', 'confirmation', 'image/png', PNG),
  captured('confirmation_pdf', 'confirmation', 'application/pdf', PDF),
];

const evidenceOf = (authorizationId: string) =>
  h.unitOfWork.run(SCOPE, (tx) => tx.payerEvidence.listByAuthorization(authorizationId));
const fileOf = (fileId: string, scope = SCOPE) => h.unitOfWork.run(scope, (tx) => tx.files.findById(fileId));

describe('payer evidence of a submission', () => {
  it('stores every capture as a ready payer_evidence file and links the confirmation image', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.reply('submit', { receipt: scriptedReceipt(), evidence: confirmationEvidence() });
    expect(
      await new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id }),
    ).toBe('receipt_recorded');

    const records = await evidenceOf(processing.id);
    expect(records.map((r) => [r.kind, r.step])).toEqual([
      ['step_screenshot', 'review'],
      ['confirmation_html', 'confirmation'],
      ['confirmation_image', 'confirmation'],
      ['confirmation_pdf', 'confirmation'],
    ]);
    const receipt = (await h.load(processing.id)).submission.payerReceipt!;
    const image = records.find((r) => r.kind === 'confirmation_image')!;
    expect(receipt.details).toEqual({ confirmationFileId: image.fileId });

    for (const record of records) {
      const file = (await fileOf(record.fileId))!;
      const state = file.toState();
      expect(state).toMatchObject({ purpose: 'payer_evidence', status: 'ready', ...SCOPE });
      // What a download reads is exactly what the portal captured, under the file's content key.
      expect(record.blobKey).toBe(fileBlobKey(file.storageKey, { checksumSha256: state.checksumSha256! }));
      expect(h.blobStore.objects.get(record.blobKey)?.length).toBe(state.sizeBytes);
      expect(h.blobStore.objects.has(file.storageKey)).toBe(false);
    }
    const html = (await fileOf(records[1]!.fileId))!;
    expect(html.contentType).toBe('text/html');
    expect(new TextDecoder().decode(h.blobStore.objects.get(records[1]!.blobKey))).toContain('PAYER-REF-1');

    const { downloadUrl } = await new GetFileUseCase(h.deps).execute(SCOPE, { fileId: image.fileId });
    expect(downloadUrl).toContain(image.blobKey);
    // Only the case's organization and environment see it.
    expect(await fileOf(image.fileId, OTHER_SCOPE)).toBeNull();
  });

  it('links the PDF when no image was captured, and the HTML when it is all there is', async () => {
    const [first, second] = [await h.authorizationIn('processing'), await h.authorizationIn('processing')];
    h.payerPortal
      .reply('submit', {
        receipt: scriptedReceipt(),
        evidence: [
          captured('confirmation_html', 'confirmation', 'text/html', HTML),
          captured('confirmation_pdf', 'confirmation', 'application/pdf', PDF),
        ],
      })
      .reply('submit', {
        receipt: scriptedReceipt(),
        evidence: [captured('confirmation_html', 'confirmation', 'text/html', HTML)],
      });
    const process = new ProcessAuthorizationUseCase(h.deps);
    await process.execute(SCOPE, { authorizationId: first.id });
    await process.execute(SCOPE, { authorizationId: second.id });

    const linked = async (id: string) =>
      (await fileOf((await h.load(id)).submission.payerReceipt!.details.confirmationFileId as string))!
        .contentType;
    expect(await linked(first.id)).toBe('application/pdf');
    expect(await linked(second.id)).toBe('text/html');
  });

  it('a receipt found at reconciliation stores what the payer showed and links its image', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.fail('submit', new Error('crash after the click'));
    await expect(
      new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id }),
    ).rejects.toThrow('crash after the click');
    h.payerPortal.reply('findSubmission', {
      receipt: scriptedReceipt({ details: { payerStatus: 'received' } }),
      evidence: [
        captured('confirmation_html', 'found_at_payer', 'text/html', HTML),
        captured('confirmation_image', 'found_at_payer', 'image/png', PNG),
      ],
    });
    expect(
      await new ReconcileAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id }),
    ).toBe('receipt_recorded');

    const records = await evidenceOf(processing.id);
    expect(records.map((r) => [r.kind, r.step])).toEqual([
      ['confirmation_html', 'found_at_payer'],
      ['confirmation_image', 'found_at_payer'],
    ]);
    const receipt = (await h.load(processing.id)).submission.payerReceipt!;
    const image = records[1]!;
    expect(receipt.details).toEqual({ payerStatus: 'received', confirmationFileId: image.fileId });
    expect((await fileOf(image.fileId))!.toState()).toMatchObject({
      purpose: 'payer_evidence',
      status: 'ready',
      contentType: 'image/png',
    });
    expect(h.blobStore.objects.get(image.blobKey)).toEqual(PNG);
  });

  it('a receipt found without evidence links no file', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.fail('submit', new Error('crash after the click'));
    await expect(
      new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id }),
    ).rejects.toThrow('crash after the click');
    h.payerPortal.reply('findSubmission', { receipt: scriptedReceipt() });
    await new ReconcileAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id });

    const receipt = (await h.load(processing.id)).submission.payerReceipt!;
    expect(receipt.details).toEqual({});
    expect(await evidenceOf(processing.id)).toEqual([]);
  });

  it('a failed blob write records nothing; the retry reconciles instead of submitting again', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.reply('submit', { receipt: scriptedReceipt(), evidence: confirmationEvidence() });
    h.blobStore.failNextPut = new Error('disk full');
    const process = new ProcessAuthorizationUseCase(h.deps);
    await expect(process.execute(SCOPE, { authorizationId: processing.id })).rejects.toThrow('disk full');

    const unchanged = await h.load(processing.id);
    expect(unchanged.status).toBe('processing');
    expect(unchanged.submission.payerReceipt).toBeNull();
    expect(await evidenceOf(processing.id)).toEqual([]);

    h.payerPortal.reply('findSubmission', { receipt: scriptedReceipt() });
    expect(await process.execute(SCOPE, { authorizationId: processing.id })).toBe('receipt_recorded');
    expect(h.payerPortal.callsTo('submit')).toHaveLength(1);
  });

  it('a superseded receipt records neither files nor rows (orphan blobs only)', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.reply('submit', { receipt: scriptedReceipt(), evidence: confirmationEvidence() });
    const blobsBefore = h.blobStore.objects.size;
    // Someone else recorded the payer's receipt while this run stored its evidence.
    h.payerPortal.onCall = async (method) => {
      if (method !== 'submit') return;
      await h.unitOfWork.run(SCOPE, async (tx) => {
        const a = (await tx.authorizations.findById(processing.id))!;
        a.recordReceipt(scriptedReceipt(), authorizationContext(h.deps));
        await tx.authorizations.save(a);
      });
    };
    expect(
      await new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id }),
    ).toBe('superseded');
    expect(await evidenceOf(processing.id)).toEqual([]);
    // The four captures' bytes stay behind as orphans, named by no row.
    expect(h.blobStore.objects.size).toBe(blobsBefore + 4);
    expect((await h.load(processing.id)).submission.payerReceipt!.details).toEqual({});
  });

  it('keeps the human check a run stopped at, with the manual interaction', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.reply('submit', {
      needsHuman: { reason: 'portal_requires_human', description: 'Type the words.' },
      evidence: [captured('step_screenshot', 'human_check', 'image/png', PNG)],
    });
    expect(
      await new ProcessAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id }),
    ).toBe('manual_interaction_required');
    const [record] = await evidenceOf(processing.id);
    expect(record).toMatchObject({ kind: 'step_screenshot', step: 'human_check' });
    expect((await fileOf(record!.fileId))?.purpose).toBe('payer_evidence');
  });
});

describe('payer evidence of a decision', () => {
  it('stores the decision letter and links it from the decision', async () => {
    const waiting = await h.authorizationIn('waiting_on_payer');
    h.payerPortal.reply('pollDecision', {
      state: 'decided',
      decision: testDecision(),
      evidence: [captured('decision_letter', 'decision', 'application/pdf', PDF)],
    });
    expect(await new PollDecisionUseCase(h.deps).execute(SCOPE, { authorizationId: waiting.id })).toBe(
      'decision_recorded',
    );
    const [letter] = await evidenceOf(waiting.id);
    const decision = (await h.load(waiting.id)).submission.decision!;
    expect(decision.details).toMatchObject({ letterFileId: letter!.fileId });
    const file = (await fileOf(letter!.fileId))!;
    expect(file.toState()).toMatchObject({ contentType: 'application/pdf', purpose: 'payer_evidence' });
    expect(h.blobStore.objects.get(letter!.blobKey)).toEqual(PDF);
  });

  it('a decision without a letter links none', async () => {
    const waiting = await h.authorizationIn('waiting_on_payer');
    h.payerPortal.reply('pollDecision', { state: 'decided', decision: testDecision() });
    await new PollDecisionUseCase(h.deps).execute(SCOPE, { authorizationId: waiting.id });
    expect((await h.load(waiting.id)).submission.decision!.details).not.toHaveProperty('letterFileId');
  });
});

describe('payer_evidence files are the service’s own', () => {
  it('a client cannot create one', async () => {
    await expect(
      new CreateFileUseCase(h.deps).execute(SCOPE, {
        fileName: 'letter.pdf',
        contentType: 'application/pdf',
        sizeBytes: 10,
        purpose: 'payer_evidence',
      }),
    ).rejects.toMatchObject({ code: 'file_content_mismatch', details: { purpose: 'payer_evidence' } });
  });

  it('a client cannot attach one to a case', async () => {
    const waiting = await h.authorizationIn('waiting_on_payer');
    h.payerPortal.reply('pollDecision', {
      state: 'decided',
      decision: testDecision(),
      evidence: [captured('decision_letter', 'decision', 'application/pdf', PDF)],
    });
    await new PollDecisionUseCase(h.deps).execute(SCOPE, { authorizationId: waiting.id });
    const [letter] = await evidenceOf(waiting.id);
    const other = await h.authorizationIn('requires_input');
    const attempt = new AttachFileUseCase(h.deps).execute(SCOPE, {
      authorizationId: other.id,
      expectedVersion: other.version,
      fileId: letter!.fileId,
      documentTypes: ['clinical_notes'],
      description: null,
    });
    await expect(attempt).rejects.toBeInstanceOf(DomainError);
    await expect(attempt).rejects.toMatchObject({ code: 'file_content_mismatch' });
  });
});
