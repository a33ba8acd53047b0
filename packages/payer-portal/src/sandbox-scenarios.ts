import { type PortalCase } from '@prior-auth/domain';

/** What the simulated payer does with a case (decision 0026). */
export type SandboxScenario =
  | 'approved'
  | 'denied'
  | 'modified'
  | 'not_required'
  | 'failed'
  | 'pending'
  | 'more_info'
  | 'portal_question'
  | 'manual_handoff';

export interface SandboxScenarioInfo {
  scenario: SandboxScenario;
  /** The `patient.memberId` answer that selects the scenario (matched ignoring case and outer spaces). */
  memberId: string;
  description: string;
}

/** The linkId of the extra question the `portal_question` scenario discovers at the portal. */
export const SANDBOX_PORTAL_QUESTION_LINK_ID = 'portal.plannedStartDate';

/** The document type the payer asks for after receipt in the `more_info` scenario. */
export const SANDBOX_REQUESTED_DOCUMENT_TYPE = 'payer_requested_records';

/**
 * Every scenario of the sandbox payer, in the order `GET /v1/sandbox/scenarios` lists them. Any member ID not
 * listed here behaves like `approved`.
 */
export const SANDBOX_SCENARIOS: readonly SandboxScenarioInfo[] = Object.freeze(
  [
    {
      scenario: 'approved',
      memberId: 'SBX-APPROVED',
      description:
        'The payer receives the submission and approves it with an authorization number. Any member ID not listed here behaves the same way.',
    },
    {
      scenario: 'denied',
      memberId: 'SBX-DENIED',
      description: 'The payer receives the submission and denies it, giving denial reasons.',
    },
    {
      scenario: 'modified',
      memberId: 'SBX-MODIFIED',
      description:
        'The payer receives the submission and approves a modified request (a shorter approval window).',
    },
    {
      scenario: 'not_required',
      memberId: 'SBX-NOT-REQUIRED',
      description: 'The payer receives the submission and answers that no prior authorization is required.',
    },
    {
      scenario: 'failed',
      memberId: 'SBX-FAILED',
      description:
        'The payer portal rejects the submission permanently: the case completes with outcome failed.',
    },
    {
      scenario: 'pending',
      memberId: 'SBX-PENDING',
      description: 'The payer receives the submission and never decides: the case stays waiting_on_payer.',
    },
    {
      scenario: 'more_info',
      memberId: 'SBX-MORE-INFO',
      description: `After receipt the payer asks for another document (type ${SANDBOX_REQUESTED_DOCUMENT_TYPE}); the case returns to requires_input. Once the document is attached and the case confirmed again, the payer approves the new submission.`,
    },
    {
      scenario: 'portal_question',
      memberId: 'SBX-PORTAL-QUESTION',
      description: `Processing discovers an extra required question at the payer portal (${SANDBOX_PORTAL_QUESTION_LINK_ID}); the case returns to requires_input. Once it is answered and the case confirmed again, the payer approves.`,
    },
    {
      scenario: 'manual_handoff',
      memberId: 'SBX-MANUAL-HANDOFF',
      description:
        "The payer portal needs a person to finish the submission: the case moves to requires_action with a complete_payer_interaction next action resolved by a manual handoff. The operator submits the request on the sandbox portal's session page, which shows the payer's reference number; a handoff completed with that reference number is found at the payer, which then approves the case. With any other reference number, or none, the payer shows nothing and the case goes back to an operator.",
    },
  ].map((info) => Object.freeze(info as SandboxScenarioInfo)),
);

const BY_MEMBER_ID = new Map(SANDBOX_SCENARIOS.map((info) => [info.memberId, info.scenario]));

/** The scenario a member ID selects; `approved` for any other member ID. */
export function scenarioForMemberId(memberId: string | null | undefined): SandboxScenario {
  if (typeof memberId !== 'string') return 'approved';
  return BY_MEMBER_ID.get(memberId.trim().toUpperCase()) ?? 'approved';
}

/** The scenario of a case, read from its `patient.memberId` answer. */
export function scenarioOf(portalCase: PortalCase): SandboxScenario {
  const item = portalCase.questionnaireResponse.item.find((i) => i.linkId === 'patient.memberId');
  return scenarioForMemberId(item?.answer[0]?.valueString);
}
