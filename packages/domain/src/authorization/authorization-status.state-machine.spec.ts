import { DomainError } from '../shared/domain-error';
import {
  AUTHORIZATION_COMMANDS,
  AUTHORIZATION_TRANSITIONS,
  type AuthorizationCommand,
  EDITABLE_STATUSES,
  isCommandAllowed,
} from './authorization-status.state-machine';
import type { Authorization } from './authorization.aggregate';
import {
  AUTHORIZATION_STATUSES,
  type AuthorizationStatus,
  type FinalSubmissionPolicy,
} from './authorization.types';
import {
  type TestContext,
  authorizationIn,
  clinicalNotesFile,
  clinicalNotesRequirement,
  crossBoundary,
  testDecision,
  testReceipt,
} from './testing/authorization.fixtures';

type Act = (auth: Authorization, ctx: TestContext) => void;

interface Scenario {
  policy?: FinalSubmissionPolicy;
  /** Extra set-up from the starting status that does not change it. */
  arrange?: Act;
  act: Act;
}

const requiredPortalQuestion = {
  linkId: 'portal.referringPhysician',
  text: 'Referring physician',
  required: true,
  answerType: 'string' as const,
};
const labResults = { type: 'lab_results', label: 'Lab results', message: 'Attach recent lab results.' };

/** How to drive each allowed transition; keyed `from|command|to`. */
const scenarios: Record<string, Scenario> = {
  'requires_input|edit|requires_input': {
    act: (a, ctx) => a.patchAnswers([{ linkId: 'request.notes', answer: [{ valueString: 'urgent' }] }], ctx),
  },
  'requires_input|edit|requires_confirmation': { act: (a, ctx) => void a.attachFile(clinicalNotesFile, ctx) },
  'requires_confirmation|edit|requires_input': {
    act: (a, ctx) => a.patchAnswers([{ linkId: 'patient.memberId', answer: [] }], ctx),
  },
  'requires_confirmation|edit|requires_confirmation': {
    act: (a, ctx) => a.patchAnswers([{ linkId: 'request.notes', answer: [{ valueString: 'urgent' }] }], ctx),
  },
  'requires_confirmation|confirm|processing': { act: (a, ctx) => void a.confirm(a.nextAction?.id, ctx) },
  'processing|reveal_portal_requirements|requires_input': {
    act: (a, ctx) => a.revealPortalRequirements({ items: [requiredPortalQuestion] }, ctx),
  },
  'processing|reveal_portal_requirements|requires_confirmation': {
    act: (a, ctx) =>
      a.revealPortalRequirements({ items: [{ ...requiredPortalQuestion, required: false }] }, ctx),
  },
  'processing|request_final_approval|requires_confirmation': {
    policy: 'requires_confirmation',
    act: (a, ctx) => void a.requestFinalApproval({ summary: {}, warnings: [], liveViewUrl: null }, ctx),
  },
  'processing|cross_final_boundary|processing': { act: (a, ctx) => a.crossFinalBoundary(ctx) },
  'processing|require_manual_interaction|requires_action': {
    act: (a, ctx) => a.requireManualInteraction({ reason: 'mfa', description: 'Complete MFA.' }, ctx),
  },
  'requires_action|resume_after_manual_interaction|processing': {
    act: (a, ctx) => a.resumeAfterManualInteraction(ctx),
  },
  'processing|record_receipt|waiting_on_payer': {
    arrange: crossBoundary,
    act: (a, ctx) => a.recordReceipt(testReceipt(), ctx),
  },
  'waiting_on_payer|record_decision|completed': { act: (a, ctx) => a.recordDecision(testDecision(), ctx) },
  'waiting_on_payer|request_more_information|requires_input': {
    act: (a, ctx) => a.requestMoreInformation(labResults, ctx),
  },
  'waiting_on_payer|request_more_information|requires_confirmation': {
    act: (a, ctx) => a.requestMoreInformation(clinicalNotesRequirement(), ctx),
  },
  'processing|fail|completed': {
    act: (a, ctx) => a.fail({ code: 'portal_rejected', message: 'Rejected', details: {} }, ctx),
  },
  'requires_action|fail|completed': {
    act: (a, ctx) => a.fail({ code: 'handoff_unable', message: 'Unable', details: {} }, ctx),
  },
  ...Object.fromEntries(
    ['requires_input', 'requires_confirmation', 'processing', 'requires_action', 'waiting_on_payer'].map(
      (from) => [`${from}|cancel|canceled`, { act: (a: Authorization, ctx: TestContext) => a.cancel(ctx) }],
    ),
  ),
};

const allowed = AUTHORIZATION_TRANSITIONS.flatMap((t) => t.to.map((to) => [t.from, t.command, to] as const));

/** A plausible call for each command, used to prove refusals. */
const attempt: Record<AuthorizationCommand, Act> = {
  edit: (a, ctx) => a.patchAnswers([{ linkId: 'request.notes', answer: [{ valueString: 'x' }] }], ctx),
  confirm: (a, ctx) => void a.confirm('act_not_current', ctx),
  cancel: (a, ctx) => a.cancel(ctx),
  reveal_portal_requirements: (a, ctx) =>
    a.revealPortalRequirements({ items: [requiredPortalQuestion] }, ctx),
  request_final_approval: (a, ctx) =>
    void a.requestFinalApproval({ summary: {}, warnings: [], liveViewUrl: null }, ctx),
  cross_final_boundary: (a, ctx) => a.crossFinalBoundary(ctx),
  require_manual_interaction: (a, ctx) =>
    a.requireManualInteraction({ reason: 'mfa', description: 'MFA' }, ctx),
  resume_after_manual_interaction: (a, ctx) => a.resumeAfterManualInteraction(ctx),
  record_receipt: (a, ctx) => a.recordReceipt(testReceipt(), ctx),
  record_decision: (a, ctx) => a.recordDecision(testDecision(), ctx),
  request_more_information: (a, ctx) => a.requestMoreInformation(labResults, ctx),
  fail: (a, ctx) => a.fail({ code: 'x', message: 'x', details: {} }, ctx),
};

const refusalCode = (command: AuthorizationCommand): string => {
  switch (command) {
    case 'edit':
      return 'authorization_not_mutable';
    case 'confirm':
      return 'authorization_not_confirmable';
    case 'cancel':
      return 'authorization_not_cancelable';
    default:
      return 'invalid_transition';
  }
};

const refused = AUTHORIZATION_STATUSES.flatMap((from) =>
  AUTHORIZATION_COMMANDS.filter((command) => !isCommandAllowed(from, command)).map(
    (command) => [from, command] as const,
  ),
);

describe('authorization status transitions', () => {
  it('has a scenario for every allowed transition in the table', () => {
    expect(allowed.map(([f, c, t]) => `${f}|${c}|${t}`).sort()).toEqual(Object.keys(scenarios).sort());
  });

  it.each(allowed)('%s --%s--> %s', (from, command, to) => {
    const scenario = scenarios[`${from}|${command}|${to}`]!;
    const { auth, ctx } = authorizationIn(from, scenario.policy);
    scenario.arrange?.(auth, ctx);
    const before = auth.version;

    scenario.act(auth, ctx);

    expect(auth.status).toBe(to);
    expect(auth.version).toBe(before + 1);
  });

  it.each(refused)('%s refuses %s', (from, command) => {
    const { auth, ctx } = authorizationIn(from);
    const before = auth.toState();

    let error: unknown;
    try {
      attempt[command](auth, ctx);
    } catch (e) {
      error = e;
    }

    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(refusalCode(command));
    if (refusalCode(command) === 'invalid_transition') {
      expect((error as DomainError).details).toMatchObject({ from, command });
    }
    expect(auth.toState()).toEqual(before);
  });

  it('terminal statuses allow no command at all', () => {
    const terminal: AuthorizationStatus[] = ['completed', 'canceled'];
    for (const status of terminal) {
      expect(AUTHORIZATION_COMMANDS.filter((c) => isCommandAllowed(status, c))).toEqual([]);
    }
  });

  it('only requires_input and requires_confirmation accept edits', () => {
    expect(AUTHORIZATION_STATUSES.filter((s) => isCommandAllowed(s, 'edit'))).toEqual([...EDITABLE_STATUSES]);
  });
});
