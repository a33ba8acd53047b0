import fc from 'fast-check';
import { DomainError } from '../shared/domain-error';
import { AUTHORIZATION_TRANSITIONS } from './authorization-status.state-machine';
import { Authorization } from './authorization.aggregate';
import { authorizationInvariantViolations } from './authorization.invariants';
import { canonicalJson } from './deep-copy';
import type { AuthorizationState, FinalSubmissionPolicy } from './authorization.types';
import {
  type TestContext,
  createInput,
  createTestContext,
  response,
  testDecision,
  testReceipt,
} from './testing/authorization.fixtures';

type Command =
  | { kind: 'patch'; linkId: string; clear: boolean }
  | { kind: 'attach'; documentTypes: string[] }
  | { kind: 'detach'; pick: number }
  | { kind: 'confirm'; which: 'current' | 'stale' | 'snapshot' | 'missing' | 'unknown' }
  | { kind: 'reveal'; requiredItem: boolean; document: boolean; issue: boolean }
  | { kind: 'requestFinalApproval' }
  | { kind: 'crossFinalBoundary' }
  | { kind: 'requireManualInteraction' }
  | { kind: 'resumeAfterManualInteraction' }
  | { kind: 'recordReceipt' }
  | { kind: 'recordDecision'; outcome: 'approved' | 'denied' | 'modified' | 'not_required'; reasons: boolean }
  | { kind: 'requestMoreInformation'; type: string }
  | { kind: 'fail' }
  | { kind: 'cancel' }
  | { kind: 'tick'; ms: number }
  /** Whatever moves the case forward from its current status, so sequences reach the payer states. */
  | { kind: 'progress'; variant: number };

const linkIds = [
  'patient.memberId',
  'patient.firstName',
  'patient.lastName',
  'patient.birthDate',
  'request.expedited',
  'portal.extra',
];
const documentTypes = ['clinical_notes', 'lab_results', 'imaging'];

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 24, arbitrary: fc.record({ kind: fc.constant('progress' as const), variant: fc.nat(11) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('patch' as const),
      linkId: fc.constantFrom(...linkIds),
      clear: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('attach' as const),
      documentTypes: fc.uniqueArray(fc.constantFrom(...documentTypes), { minLength: 1 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('detach' as const), pick: fc.integer({ min: -1, max: 3 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('confirm' as const),
      which: fc.constantFrom(
        'current' as const,
        'current' as const,
        'stale' as const,
        'snapshot' as const,
        'missing' as const,
        'unknown' as const,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('reveal' as const),
      requiredItem: fc.boolean(),
      document: fc.boolean(),
      issue: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'requestFinalApproval' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'crossFinalBoundary' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'requireManualInteraction' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'resumeAfterManualInteraction' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'recordReceipt' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('recordDecision' as const),
      outcome: fc.constantFrom(
        'approved' as const,
        'denied' as const,
        'modified' as const,
        'not_required' as const,
      ),
      reasons: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('requestMoreInformation' as const),
      type: fc.constantFrom(...documentTypes),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'fail' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'cancel' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 86_400_000 }) }),
  },
);

const run = (auth: Authorization, ctx: TestContext, command: Command, seenActionIds: string[]): void => {
  const state = auth.toState();
  switch (command.kind) {
    case 'patch':
      auth.patchAnswers(
        [
          {
            linkId: command.linkId,
            answer: command.clear
              ? []
              : [command.linkId === 'request.expedited' ? { valueBoolean: true } : { valueString: 'value' }],
          },
        ],
        ctx,
      );
      return;
    case 'attach':
      auth.attachFile(
        { fileId: 'file_x', documentTypes: command.documentTypes, label: 'doc.pdf', description: null },
        ctx,
      );
      return;
    case 'detach':
      auth.detachAttachment(state.attachments[command.pick]?.id ?? 'att_unknown', ctx);
      return;
    case 'confirm': {
      const id = {
        current: state.nextAction?.id,
        stale: seenActionIds[0],
        snapshot: state.submission.reviewSnapshot?.nextActionId,
        missing: undefined,
        unknown: 'act_unknown',
      }[command.which];
      auth.confirm(id, ctx);
      return;
    }
    case 'reveal':
      auth.revealPortalRequirements(
        {
          items: [
            { linkId: 'portal.extra', text: 'Extra', required: command.requiredItem, answerType: 'string' },
          ],
          documents: command.document
            ? [{ type: 'imaging', label: 'Imaging', message: 'Attach imaging.' }]
            : [],
          issues: command.issue
            ? [{ code: 'portal_check', message: 'Check', field: 'patient.memberId', severity: 'error' }]
            : [],
        },
        ctx,
      );
      return;
    case 'requestFinalApproval':
      auth.requestFinalApproval({ summary: {}, warnings: [], liveViewUrl: null }, ctx);
      return;
    case 'crossFinalBoundary':
      auth.crossFinalBoundary(ctx);
      return;
    case 'requireManualInteraction':
      auth.requireManualInteraction({ reason: 'captcha', description: 'Solve it.' }, ctx);
      return;
    case 'resumeAfterManualInteraction':
      auth.resumeAfterManualInteraction(ctx);
      return;
    case 'recordReceipt':
      auth.recordReceipt(testReceipt(ctx.now), ctx);
      return;
    case 'recordDecision':
      auth.recordDecision(
        testDecision({ outcome: command.outcome, denialReasons: command.reasons ? ['Not covered'] : [] }),
        ctx,
      );
      return;
    case 'requestMoreInformation':
      auth.requestMoreInformation(
        { type: command.type, label: command.type, message: `Attach ${command.type}.` },
        ctx,
      );
      return;
    case 'fail':
      auth.fail({ code: 'portal_error', message: 'Portal error', details: {} }, ctx);
      return;
    case 'cancel':
      auth.cancel(ctx);
      return;
    case 'tick':
      ctx.advance(command.ms);
      return;
    case 'progress':
      progress(auth, ctx, state, command.variant);
      return;
  }
};

/** `variant` picks among the plausible next steps where the real pipeline branches. */
const progress = (
  auth: Authorization,
  ctx: TestContext,
  state: AuthorizationState,
  variant: number,
): void => {
  switch (state.status) {
    case 'requires_input': {
      const question = state.requirements.questions[0];
      const document = state.requirements.documents[0];
      if (question) auth.patchAnswers([{ linkId: question.linkId, answer: [{ valueString: 'v' }] }], ctx);
      else if (document) {
        auth.attachFile(
          { fileId: 'file_p', documentTypes: [document.type], label: 'p.pdf', description: null },
          ctx,
        );
      } else auth.patchAnswers([], ctx);
      return;
    }
    case 'requires_confirmation':
      auth.confirm(state.nextAction?.id, ctx);
      return;
    case 'processing':
      if (variant === 0 || variant === 11)
        auth.requireManualInteraction({ reason: 'mfa', description: 'Complete MFA.' }, ctx);
      else if (variant === 1 && state.finalBoundaryCrossedAt === null) {
        auth.revealPortalRequirements(
          { items: [{ linkId: 'portal.extra', text: 'Extra', required: true, answerType: 'string' }] },
          ctx,
        );
      } else if (variant === 2)
        auth.fail({ code: 'portal_error', message: 'Portal error', details: {} }, ctx);
      else if (state.finalBoundaryCrossedAt !== null) auth.recordReceipt(testReceipt(ctx.now), ctx);
      else if (state.policy.finalSubmission === 'automatic') auth.crossFinalBoundary(ctx);
      else auth.requestFinalApproval({ summary: {}, warnings: [], liveViewUrl: null }, ctx);
      return;
    case 'requires_action':
      if (variant % 4 === 0) auth.fail({ code: 'handoff_unable', message: 'Unable', details: {} }, ctx);
      else if (variant % 4 === 1) auth.cancel(ctx);
      else auth.resumeAfterManualInteraction(ctx);
      return;
    case 'waiting_on_payer':
      if (variant % 4 < 2) {
        // clinical_notes is usually attached already, so that request needs only a new confirmation.
        const type = variant % 4 === 0 ? 'lab_results' : 'clinical_notes';
        auth.requestMoreInformation({ type, label: type, message: `Attach ${type}.` }, ctx);
      } else if (variant % 4 === 2) auth.cancel(ctx);
      else auth.recordDecision(testDecision({ outcome: 'denied', denialReasons: ['Not covered'] }), ctx);
      return;
    default:
      auth.cancel(ctx);
  }
};

/** Cheap assertion for the hot loop; fast-check reports the message with the shrunk counterexample. */
const check = (condition: boolean, message: string): void => {
  if (!condition) throw new Error(message);
};

describe('Authorization invariants under random command sequences', () => {
  it('never breaks an invariant, and refused commands change nothing', () => {
    const reached = new Set<string>();
    const succeeded = new Set<string>();
    fc.assert(
      fc.property(
        fc.constantFrom<FinalSubmissionPolicy>('automatic', 'requires_confirmation'),
        fc.boolean(),
        fc.array(commandArb, { minLength: 1, maxLength: 60, size: 'max' }),
        (policy, prefilled, commands) => {
          const ctx = createTestContext();
          const auth = Authorization.create(
            createInput({
              policy: { finalSubmission: policy },
              questionnaireResponse: prefilled
                ? response(linkIds.slice(0, 4).map((linkId) => ({ linkId, answer: [{ valueString: 'v' }] })))
                : undefined,
            }),
            ctx,
          );
          expect(authorizationInvariantViolations(auth.toState())).toEqual([]);
          auth.pullEvents();
          const seenActionIds = [auth.nextAction!.id];
          let everReceipt = false;

          for (const command of commands) {
            const before: AuthorizationState = auth.toState();
            let refused = false;
            try {
              run(auth, ctx, command, seenActionIds);
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              refused = true;
            }
            const after = auth.toState();
            const events = auth.pullEvents();
            reached.add(after.status);
            if (!refused && after.version !== before.version)
              succeeded.add(`${before.status}>${after.status}`);

            const violations = authorizationInvariantViolations(after);
            check(violations.length === 0, `invariants after ${command.kind}: ${violations.join('; ')}`);
            const unchanged = canonicalJson(after) === canonicalJson(before);
            if (refused || command.kind === 'tick') {
              check(unchanged && events.length === 0, `${command.kind} refused or no-op but changed state`);
              continue;
            }
            // Version strictly increases by one per mutation; the only no-op is a repeated boundary crossing.
            if (command.kind === 'crossFinalBoundary' && before.finalBoundaryCrossedAt !== null) {
              check(unchanged, 'repeated crossFinalBoundary changed state');
            } else {
              check(after.version === before.version + 1, `${command.kind} did not bump the version by one`);
              check(after.updatedAt.getTime() === ctx.now.getTime(), 'updatedAt not set');
              check(
                events.length > 0 &&
                  events.every((e) => e.version === after.version && e.authorizationId === after.id),
                'events missing or carrying the wrong version',
              );
            }
            check(
              after.requirements.version >= before.requirements.version,
              'requirements version went back',
            );
            if (after.nextAction !== null && after.nextAction.id !== before.nextAction?.id) {
              check(!seenActionIds.includes(after.nextAction.id), 'a next action id was reused');
              check(
                after.nextAction.authorizationVersion === after.version,
                'new action not on current version',
              );
              seenActionIds.push(after.nextAction.id);
            }
            // Terminal states are final and the payer's evidence is never lost.
            if (before.status === 'completed' || before.status === 'canceled') {
              check(after.status === before.status, 'left a terminal status');
            }
            if (everReceipt) check(after.submission.payerReceipt !== null, 'payer receipt lost');
            everReceipt = after.submission.payerReceipt !== null;
            if (before.submission.decision !== null) {
              check(
                canonicalJson(after.submission.decision) === canonicalJson(before.submission.decision),
                'payer decision changed',
              );
            }
          }
        },
      ),
      { numRuns: 200 },
    );
    // Guards the generator itself: random sequences must reach every status and exercise every command.
    expect([...reached].sort()).toEqual([
      'canceled',
      'completed',
      'processing',
      'requires_action',
      'requires_confirmation',
      'requires_input',
      'waiting_on_payer',
    ]);
    // Every transition in the table (including edits that keep the status) is exercised.
    const table = AUTHORIZATION_TRANSITIONS.flatMap((t) => t.to.map((to) => `${t.from}>${to}`));
    expect([...succeeded].sort()).toEqual([...new Set(table)].sort());
  });
});
