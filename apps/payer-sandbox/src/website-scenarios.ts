import { scenarioForMemberId, type SandboxScenario } from '@prior-auth/payer-portal';

/**
 * What the simulated payer website does for a member: the sandbox scenarios of decision 0013, plus two faults
 * that exist only on the website to exercise the automation's retries (decision 0017).
 */
export type WebsiteScenario = SandboxScenario | 'portal_down' | 'session_expired';

/** Member IDs the website does not know: looking one up shows the "member not found" page. */
export const UNKNOWN_MEMBER_ID = 'SBX-UNKNOWN-MEMBER';

const WEBSITE_ONLY: Record<string, WebsiteScenario> = {
  'SBX-PORTAL-DOWN': 'portal_down',
  'SBX-SESSION-EXPIRED': 'session_expired',
};

export function websiteScenarioFor(memberId: string): WebsiteScenario {
  return WEBSITE_ONLY[memberId.trim().toUpperCase()] ?? scenarioForMemberId(memberId);
}

export function isKnownMember(memberId: string): boolean {
  const normalized = memberId.trim().toUpperCase();
  return normalized !== UNKNOWN_MEMBER_ID && /^[A-Z0-9-]{3,40}$/.test(normalized);
}

/** The document type the payer asks for in the `more_info` scenario (the same as the old simulator's). */
export const REQUESTED_DOCUMENT = {
  type: 'payer_requested_records',
  label: 'Records requested by the payer',
} as const;

/** The extra question the form adds in the `portal_question` scenario (the same linkId as decision 0013). */
export const PORTAL_QUESTION = {
  linkId: 'portal.plannedStartDate',
  text: 'Planned start date of the service',
  min: '2000-01-01',
  max: '2100-12-31',
} as const;
