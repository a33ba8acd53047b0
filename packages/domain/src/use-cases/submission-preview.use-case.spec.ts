import { type SubmissionPacket } from '../ports/submission-preview-renderer.port';
import { createHarness, PDF_BYTES, SCOPE } from '../testing';
import { EnsureSubmissionPreviewUseCase, submissionPacketOf } from './ensure-submission-preview.use-case';
import { PatchAnswersUseCase } from './patch-answers.use-case';

/* The submission preview (decision 0032): rendered once per answers and attachments version. */

function setUp() {
  const h = createHarness();
  const packets: SubmissionPacket[] = [];
  const renderer = {
    renderPdf: async (packet: SubmissionPacket) => {
      packets.push(packet);
      return new Uint8Array([...PDF_BYTES, packets.length]);
    },
  };
  const preview = new EnsureSubmissionPreviewUseCase({ ...h.deps, renderer });
  return { h, packets, preview };
}

describe('EnsureSubmissionPreviewUseCase', () => {
  it('is null while requirements are open', async () => {
    const { h, packets, preview } = setUp();
    const authorization = await h.authorizationIn('requires_input');
    expect(await preview.execute(SCOPE, authorization)).toBeNull();
    expect(packets).toEqual([]);
  });

  it('renders once per version of the answers and attachments, as a ready submission_preview file', async () => {
    const { h, packets, preview } = setUp();
    const authorization = await h.authorizationIn('requires_confirmation');
    const first = await preview.execute(SCOPE, authorization);
    expect(first?.toState()).toMatchObject({
      status: 'ready',
      purpose: 'submission_preview',
      contentType: 'application/pdf',
      sizeBytes: PDF_BYTES.length + 1,
    });
    expect(packets[0]).toMatchObject({
      authorizationId: authorization.id,
      attachments: [expect.objectContaining({ documentTypes: ['clinical_notes'] })],
    });
    expect(packets[0]!.answers.length).toBeGreaterThan(0);
    expect(packets[0]!.answers.every((a) => a.question !== '')).toBe(true);
    expect(packets[0]!.answers.some((a) => a.values.length > 0)).toBe(true);

    const again = await preview.execute(SCOPE, await h.load(authorization.id));
    expect(again?.id).toBe(first?.id);
    expect(packets).toHaveLength(1);

    const patched = await new PatchAnswersUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorization.id,
      expectedVersion: null,
      items: [],
    });
    const renewed = await preview.execute(SCOPE, patched);
    expect(renewed?.id).not.toBe(first?.id);
    expect(packets).toHaveLength(2);
    const stored = [...h.blobStore.objects.keys()].filter((key) => key.includes(`/content/${renewed?.id}/`));
    expect(stored).toEqual([expect.stringMatching(/sha256-[0-9a-f]{64}$/)]);
  });
});

describe('submissionPacketOf', () => {
  it('lists a repeating group’s question once per instance, numbered from 1, with that instance’s answers', async () => {
    const { h } = setUp();
    const state = (await h.authorizationIn('requires_input')).toState();
    const packet = submissionPacketOf(
      {
        ...state,
        questionnaire: {
          id: 'devices',
          version: '1',
          title: 'Devices',
          groups: [
            {
              id: 'g',
              title: 'G',
              items: [{ linkId: 'name', text: 'Name', required: true, answerType: 'string' }],
            },
          ],
          groupRules: [{ linkId: 'devices', text: 'Devices', repeats: true, linkIds: ['name'] }],
        },
        documentRequirements: [],
        questionnaireResponse: {
          item: [
            { linkId: 'name', instance: 1, answer: [{ valueString: 'Meter' }] },
            { linkId: 'name', instance: 0, answer: [{ valueString: 'Pump' }] },
          ],
        },
      },
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(packet.answers).toEqual([
      { linkId: 'name', question: 'Name (1)', values: ['Pump'] },
      { linkId: 'name', question: 'Name (2)', values: ['Meter'] },
    ]);
  });
});
