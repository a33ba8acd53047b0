import { type QuestionnaireItemTemplate } from '../requirements/questionnaire.types';
import { PayerPortalError } from '../ports/payer-portal.port';
import { createHarness, SCOPE, scriptedReceipt, type Harness } from '../testing';
import { testDecision } from '../authorization/testing/authorization.fixtures';
import { AttachFileUseCase } from './attach-file.use-case';
import { CancelAuthorizationUseCase } from './cancel-authorization.use-case';
import { ConfirmAuthorizationUseCase } from './confirm-authorization.use-case';
import { PollDecisionUseCase } from './poll-decision.use-case';
import { ProcessAuthorizationUseCase } from './process-authorization.use-case';
import { ReconcileAuthorizationUseCase } from './reconcile-authorization.use-case';

let h: Harness;
let process: ProcessAuthorizationUseCase;
beforeEach(() => {
  h = createHarness();
  process = new ProcessAuthorizationUseCase(h.deps);
});

const run = (authorizationId: string) => process.execute(SCOPE, { authorizationId });

const confirm = async (authorizationId: string) => {
  const current = await h.load(authorizationId);
  return new ConfirmAuthorizationUseCase(h.deps).execute(SCOPE, {
    authorizationId,
    expectedVersion: current.version,
    nextActionId: current.nextAction?.id,
  });
};

const portalItem: QuestionnaireItemTemplate = {
  linkId: 'portal.priorTherapy',
  text: 'Prior therapy tried?',
  required: true,
  answerType: 'boolean',
};

describe('ProcessAuthorizationUseCase', () => {
  it('policy automatic: crosses the boundary, submits, records the receipt and schedules a poll', async () => {
    const processing = await h.authorizationIn('processing');
    h.jobs().length = 0;
    expect(await run(processing.id)).toBe('receipt_recorded');

    const stored = await h.load(processing.id);
    expect(stored.status).toBe('waiting_on_payer');
    expect(stored.finalBoundaryCrossedAt).not.toBeNull();
    expect(stored.submission.payerReceipt?.referenceNumber).toBe('PAYER-REF-1');
    expect(h.payerPortal.calls.map((c) => c.method)).toEqual([
      'discover',
      'validate',
      'prepareSubmission',
      'submit',
    ]);
    expect(h.payerPortal.callsTo('findSubmission')).toEqual([]);
    expect(h.jobs()).toEqual([
      {
        type: 'poll_decision',
        authorizationId: processing.id,
        runAt: new Date(h.clock.now().getTime() + 5_000),
      },
      // docs/decisions/0031-events-and-webhooks.md: the overdue check runs when the decision falls due.
      {
        type: 'decision_overdue',
        authorizationId: processing.id,
        runAt: new Date('2026-03-09T09:30:00.000Z'),
        payload: { decisionDueAt: '2026-03-09T09:30:00.000Z' },
      },
    ]);
  });

  it('hands the portal a plain case with the attachments’ storage keys', async () => {
    const processing = await h.authorizationIn('processing');
    await run(processing.id);
    const portalCase = h.payerPortal.calls[0]!.portalCase;
    expect(portalCase).toMatchObject({
      authorizationId: processing.id,
      environment: 'sandbox',
      routeId: 'route_uhc_ca_outpatient',
      providerNpi: '1234567893',
      portalAuthMode: 'automated',
      attachments: [
        {
          documentTypes: ['clinical_notes'],
          label: 'notes.pdf',
          contentType: 'application/pdf',
          storageKey: expect.stringMatching(/^sandbox\/org_1\/content\/file_\d+\/sha256-[0-9a-f]{64}$/),
        },
      ],
    });
  });

  it('policy requires_confirmation: asks for final approval with the review and non-blocking findings', async () => {
    const processing = await h.authorizationIn('processing', 'requires_confirmation');
    h.payerPortal
      .reply('validate', {
        issues: [
          { code: 'address_unverified', message: 'Address not verified.', field: 'x', severity: 'warning' },
        ],
      })
      .reply('prepareSubmission', { summary: { pages: 3 }, warnings: ['Fax fallback'], liveViewUrl: null });
    expect(await run(processing.id)).toBe('awaiting_final_approval');
    const stored = await h.load(processing.id);
    expect(stored.status).toBe('requires_confirmation');
    expect(stored.nextAction?.type).toBe('approve_submission');
    expect(stored.submission.reviewSnapshot).toMatchObject({
      summary: { pages: 3 },
      warnings: ['Fax fallback', 'Address not verified.'],
    });
    expect(h.payerPortal.callsTo('submit')).toEqual([]);
  });

  it('after approval, asks the payer first and submits only when the payer has nothing', async () => {
    const processing = await h.authorizationIn('processing', 'requires_confirmation');
    await run(processing.id);
    await confirm(processing.id);
    expect(await run(processing.id)).toBe('receipt_recorded');
    const [lookup] = h.payerPortal.callsTo('findSubmission');
    const [submit] = h.payerPortal.callsTo('submit');
    expect(lookup?.options).toEqual(submit?.options);
    expect((await h.load(processing.id)).status).toBe('waiting_on_payer');
  });

  it('reveals requirements the case does not know and returns to the customer', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.reply('discover', {
      items: [
        portalItem,
        { linkId: 'patient.memberId', text: 'Member', required: true, answerType: 'string' },
      ],
      documents: [],
      issues: [],
    });
    expect(await run(processing.id)).toBe('requirements_revealed');
    const stored = await h.load(processing.id);
    expect(stored.status).toBe('requires_input');
    expect(stored.requirements.questions.map((q) => q.linkId)).toEqual(['portal.priorTherapy']);
    expect(h.payerPortal.callsTo('validate')).toEqual([]);
  });

  it('does not reveal again what the case already knows, so an answered portal question does not loop', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.reply('discover', {
      items: [{ linkId: 'patient.memberId', text: 'Member', required: true, answerType: 'string' }],
      documents: [{ type: 'clinical_notes', label: 'Notes', message: 'Attach notes.' }],
      issues: [{ code: 'fyi', message: 'Portal is slow today.', field: '', severity: 'info' }],
    });
    expect(await run(processing.id)).toBe('receipt_recorded');
  });

  it('turns blocking validation issues into requirements', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.reply('validate', {
      issues: [
        {
          code: 'member_not_found',
          message: 'Member not found.',
          field: 'patient.memberId',
          severity: 'error',
        },
      ],
    });
    expect(await run(processing.id)).toBe('requirements_revealed');
    const stored = await h.load(processing.id);
    expect(stored.status).toBe('requires_input');
    expect(stored.requirements.issues.map((i) => i.code)).toEqual(['member_not_found']);
  });

  it('opens a payer interaction when the portal needs a human', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.reply('submit', { needsHuman: { reason: 'captcha', description: 'Solve it.' } });
    expect(await run(processing.id)).toBe('manual_interaction_required');
    const stored = await h.load(processing.id);
    expect(stored.status).toBe('requires_action');
    expect(stored.nextAction).toMatchObject({
      type: 'complete_payer_interaction',
      resolution: { kind: 'manual_handoff', reason: 'captcha' },
    });
  });

  it('rethrows transient portal errors for the worker to retry, leaving the case as it was', async () => {
    const processing = await h.authorizationIn('processing');
    const outage = new PayerPortalError('portal_unavailable', 'Portal down', { transient: true });
    h.payerPortal.fail('discover', outage);
    await expect(run(processing.id)).rejects.toBe(outage);
    expect((await h.load(processing.id)).version).toBe(processing.version);
  });

  it('fails the case on a permanent portal error', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.fail(
      'submit',
      new PayerPortalError('submission_rejected', 'Rejected by payer', {
        transient: false,
        details: { field: 'npi' },
      }),
    );
    expect(await run(processing.id)).toBe('failed');
    const stored = await h.load(processing.id);
    expect(stored.toState()).toMatchObject({
      status: 'completed',
      outcome: 'failed',
      failure: { code: 'submission_rejected', message: 'Rejected by payer', details: { field: 'npi' } },
    });
  });

  it('skips cases that are not processing', async () => {
    const ready = await h.authorizationIn('requires_confirmation');
    expect(await run(ready.id)).toBe('skipped');
    expect(await run('auth_404')).toBe('skipped');
    expect(h.payerPortal.calls).toEqual([]);
  });

  it('is superseded by a change made while the portal was busy', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.onCall = async (method) => {
      if (method !== 'discover') return;
      await new CancelAuthorizationUseCase(h.deps).execute(SCOPE, {
        authorizationId: processing.id,
        expectedVersion: processing.version,
      });
    };
    expect(await run(processing.id)).toBe('superseded');
    expect((await h.load(processing.id)).status).toBe('canceled');
  });

  it('commits the boundary crossing before submitting', async () => {
    const processing = await h.authorizationIn('processing');
    let crossedWhenSubmitting: Date | null = null;
    h.payerPortal.onCall = async (method) => {
      if (method === 'submit') crossedWhenSubmitting = (await h.load(processing.id)).finalBoundaryCrossedAt;
    };
    await run(processing.id);
    expect(crossedWhenSubmitting).not.toBeNull();
  });
});

describe('ReconcileAuthorizationUseCase', () => {
  const crashDuringSubmit = async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.fail('submit', new Error('worker crashed'));
    await expect(run(processing.id)).rejects.toThrow('worker crashed');
    const stored = await h.load(processing.id);
    expect(stored.status).toBe('processing');
    expect(stored.finalBoundaryCrossedAt).not.toBeNull();
    return stored;
  };

  it('records the receipt the payer already has without submitting again', async () => {
    const crashed = await crashDuringSubmit();
    h.payerPortal.reply('findSubmission', { receipt: scriptedReceipt({ referenceNumber: 'FOUND-1' }) });
    expect(
      await new ReconcileAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: crashed.id }),
    ).toBe('receipt_recorded');
    expect(h.payerPortal.callsTo('submit')).toHaveLength(1);
    expect((await h.load(crashed.id)).submission.payerReceipt?.referenceNumber).toBe('FOUND-1');
  });

  it('submits with the same idempotency key when the payer has nothing', async () => {
    const crashed = await crashDuringSubmit();
    expect(
      await new ReconcileAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: crashed.id }),
    ).toBe('receipt_recorded');
    const [first, second] = h.payerPortal.callsTo('submit');
    expect(second?.options).toEqual(first?.options);
    expect(h.payerPortal.callsTo('findSubmission')[0]?.options).toEqual(first?.options);
  });

  it('skips a case whose boundary is not crossed', async () => {
    const processing = await h.authorizationIn('processing');
    expect(
      await new ReconcileAuthorizationUseCase(h.deps).execute(SCOPE, { authorizationId: processing.id }),
    ).toBe('skipped');
  });
});

describe('PollDecisionUseCase', () => {
  const poll = (authorizationId: string) =>
    new PollDecisionUseCase(h.deps).execute(SCOPE, { authorizationId });

  it('re-schedules itself while the payer has not decided', async () => {
    const waiting = await h.authorizationIn('waiting_on_payer');
    h.jobs().length = 0;
    h.clock.advance(60_000);
    expect(await poll(waiting.id)).toBe('decision_pending');
    expect(h.jobs()).toEqual([
      {
        type: 'poll_decision',
        authorizationId: waiting.id,
        runAt: new Date(h.clock.now().getTime() + 5_000),
      },
    ]);
  });

  it('completes the case with the decision', async () => {
    const waiting = await h.authorizationIn('waiting_on_payer');
    h.payerPortal.reply('pollDecision', {
      state: 'decided',
      decision: testDecision({ outcome: 'approved' }),
    });
    expect(await poll(waiting.id)).toBe('decision_recorded');
    expect((await h.load(waiting.id)).toState()).toMatchObject({ status: 'completed', outcome: 'approved' });
  });

  it('returns to the customer when the payer asks for more, then resubmits under a new key', async () => {
    const waiting = await h.authorizationIn('waiting_on_payer');
    h.payerPortal.reply('pollDecision', {
      state: 'more_information',
      document: { type: 'imaging_report', label: 'Imaging report', message: 'Attach the imaging report.' },
    });
    expect(await poll(waiting.id)).toBe('more_information_requested');
    const asked = await h.load(waiting.id);
    expect(asked.status).toBe('requires_input');
    expect(asked.requirements.documents.map((d) => d.type)).toEqual(['imaging_report']);

    const file = await h.readyFile();
    await new AttachFileUseCase(h.deps).execute(SCOPE, {
      authorizationId: waiting.id,
      expectedVersion: asked.version,
      fileId: file.id,
      documentTypes: ['imaging_report'],
      description: null,
    });
    await confirm(waiting.id);
    h.clock.advance(1000);
    h.payerPortal.reply('submit', { receipt: scriptedReceipt({ referenceNumber: 'PAYER-REF-2' }) });
    expect(await run(waiting.id)).toBe('receipt_recorded');
    const [first, second] = h.payerPortal.callsTo('submit');
    expect(second?.options).not.toEqual(first?.options);
    expect((await h.load(waiting.id)).submission.payerReceipt?.referenceNumber).toBe('PAYER-REF-2');
  });

  it('skips cases that are not waiting on the payer and lets portal errors reach the worker', async () => {
    const processing = await h.authorizationIn('processing');
    expect(await poll(processing.id)).toBe('skipped');
    const waiting = await h.authorizationIn('waiting_on_payer');
    const outage = new PayerPortalError('portal_unavailable', 'down', { transient: false });
    h.payerPortal.fail('pollDecision', outage);
    await expect(poll(waiting.id)).rejects.toBe(outage);
    expect((await h.load(waiting.id)).status).toBe('waiting_on_payer');
  });
});
