import { createHash } from 'node:crypto';
import {
  PayerPortalError,
  type Clock,
  type DecisionPoll,
  type DocumentRequirement,
  type PayerDecision,
  type PayerPortal,
  type PayerReceipt,
  type PortalCase,
  type PortalDiscovery,
  type PortalValidation,
  type PreparedSubmission,
  type QuestionnaireItemTemplate,
  type SubmissionLookup,
  type SubmitResult,
} from '@prior-auth/domain';
import {
  SANDBOX_PORTAL_QUESTION_LINK_ID,
  SANDBOX_REQUESTED_DOCUMENT_TYPE,
  scenarioOf,
  type SandboxScenario,
} from './sandbox-scenarios';

export interface SandboxPayerPortalOptions {
  /**
   * How long after the receipt the simulated payer decides (default 2 s): a poll before then answers
   * `pending`. The worker also schedules its first poll this long after the receipt.
   */
  decisionDelayMs?: number;
  /** Simulated time every portal call takes (default 0). */
  latencyMs?: number;
  clock?: Clock;
}

export const DEFAULT_SANDBOX_DECISION_DELAY_MS = 2_000;

/** The `channel` of receipts the sandbox payer issues. */
export const SANDBOX_CHANNEL = 'sandbox_portal';

const SANDBOX_NOTICE = 'Sandbox: a simulated payer answers this case; nothing is sent to a real payer.';

const PORTAL_QUESTION: QuestionnaireItemTemplate = {
  linkId: SANDBOX_PORTAL_QUESTION_LINK_ID,
  text: 'Planned start date of the service (asked by the payer portal)',
  required: true,
  answerType: 'date',
  min: '2000-01-01',
  max: '2100-12-31',
};

const REQUESTED_DOCUMENT: DocumentRequirement = {
  type: SANDBOX_REQUESTED_DOCUMENT_TYPE,
  label: 'Records requested by the payer',
  message: 'The payer asks for additional medical records supporting the request; attach them.',
};

/** Scenarios whose automated submission the payer accepts (with a receipt). */
const ACCEPTED_BY_PORTAL: ReadonlySet<SandboxScenario> = new Set<SandboxScenario>([
  'approved',
  'denied',
  'modified',
  'not_required',
  'pending',
  'more_info',
  'portal_question',
]);

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The simulated payer of the sandbox environment (decision 13): deterministic, chosen by the case's
 * `patient.memberId` answer (see SANDBOX_SCENARIOS), and stateless, so any number of worker processes, before
 * and after restarts, give the same answers.
 *
 * - `submit` is idempotent on the idempotency key: the receipt (reference number `SBX-<hash of the key>`,
 *   `receivedAt` = the boundary crossing encoded in the key) is a pure function of the key, so repeating a
 *   submission with the same key can never make a second one at the payer.
 * - `findSubmission` by key alone answers null: keeping no record, the sandbox cannot know whether `submit` ran
 *   (answering "found" would skip `submit` on every approved case, since the pipeline asks before submitting
 *   after an approval). Reconciliation after a crash therefore submits again with the same key and gets the
 *   identical receipt. A lookup with an operator-observed reference number is found when it is the reference
 *   of this key, or, in the `manual_handoff` scenario, the reference the sandbox portal's session page showed
 *   the operator for this authorization (`sandboxManualReferenceNumber`; case and outer spaces ignored). Any
 *   other reported reference is not found, so a mistyped or invented one never turns into a receipt.
 * - Decisions depend only on the scenario and, for `more_info`, on whether the requested document is attached;
 *   they are due `decisionDelayMs` after the case's receipt (`PortalCase.receipt`), and a poll before then
 *   answers `pending`.
 */
export class SandboxPayerPortal implements PayerPortal {
  readonly decisionDelayMs: number;
  private readonly latencyMs: number;
  private readonly clock: Clock;

  constructor(options: SandboxPayerPortalOptions = {}) {
    this.decisionDelayMs = nonNegative(
      options.decisionDelayMs ?? DEFAULT_SANDBOX_DECISION_DELAY_MS,
      'decisionDelayMs',
    );
    this.latencyMs = nonNegative(options.latencyMs ?? 0, 'latencyMs');
    this.clock = options.clock ?? { now: () => new Date() };
  }

  async discover(portalCase: PortalCase): Promise<PortalDiscovery> {
    const scenario = await this.enter(portalCase);
    return {
      items: scenario === 'portal_question' ? [{ ...PORTAL_QUESTION }] : [],
      documents: [],
      issues: [],
    };
  }

  async validate(portalCase: PortalCase): Promise<PortalValidation> {
    await this.enter(portalCase);
    return { issues: [] };
  }

  async prepareSubmission(portalCase: PortalCase): Promise<PreparedSubmission> {
    const scenario = await this.enter(portalCase);
    const selection = portalCase.templateSelection;
    return {
      summary: {
        channel: SANDBOX_CHANNEL,
        sandboxScenario: scenario,
        payerId: selection.payerId,
        insuranceState: selection.insuranceState,
        serviceType: selection.serviceType,
        serviceCode: selection.serviceCode,
        serviceCodeSystem: selection.serviceCodeSystem,
        providerNpi: portalCase.providerNpi,
        answeredItems: portalCase.questionnaireResponse.item.filter((item) => item.answer.length > 0).length,
        attachments: portalCase.attachments.map((a) => ({
          label: a.label,
          documentTypes: [...a.documentTypes],
        })),
      },
      warnings: [SANDBOX_NOTICE],
      liveViewUrl: null,
    };
  }

  async submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult> {
    const scenario = await this.enter(portalCase);
    if (scenario === 'failed') {
      throw new PayerPortalError(
        'payer_rejected_submission',
        'The payer portal rejected the submission (sandbox scenario "failed").',
        { transient: false, details: { sandboxScenario: scenario } },
      );
    }
    if (scenario === 'manual_handoff') {
      return {
        needsHuman: {
          reason: 'portal_requires_human',
          description:
            'The payer portal needs a person to finish the submission (sandbox scenario "manual_handoff").',
        },
      };
    }
    return {
      receipt: this.receipt(options.idempotencyKey, scenario, sandboxReferenceNumber(options.idempotencyKey)),
    };
  }

  async findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<PayerReceipt | null> {
    const scenario = await this.enter(portalCase);
    const observed = lookup.referenceNumber?.trim();
    if (observed === undefined || observed === '') return null;
    if (scenario === 'manual_handoff') {
      const reference = sandboxManualReferenceNumber(portalCase.authorizationId);
      return observed.toUpperCase() === reference
        ? this.receipt(lookup.idempotencyKey, scenario, reference)
        : null;
    }
    if (ACCEPTED_BY_PORTAL.has(scenario) && observed === sandboxReferenceNumber(lookup.idempotencyKey)) {
      return this.receipt(lookup.idempotencyKey, scenario, observed);
    }
    return null;
  }

  async pollDecision(portalCase: PortalCase): Promise<DecisionPoll> {
    const scenario = await this.enter(portalCase);
    const receivedAt = portalCase.receipt?.receivedAt;
    if (
      receivedAt !== undefined &&
      this.clock.now().getTime() < receivedAt.getTime() + this.decisionDelayMs
    ) {
      return { state: 'pending' };
    }
    switch (scenario) {
      case 'pending':
      case 'failed':
        return { state: 'pending' };
      case 'more_info': {
        const provided = portalCase.attachments.some((a) =>
          a.documentTypes.includes(SANDBOX_REQUESTED_DOCUMENT_TYPE),
        );
        if (!provided) return { state: 'more_information', document: { ...REQUESTED_DOCUMENT } };
        return { state: 'decided', decision: this.decision(portalCase, 'approved', scenario) };
      }
      case 'denied':
        return { state: 'decided', decision: this.decision(portalCase, 'denied', scenario) };
      case 'modified':
        return { state: 'decided', decision: this.decision(portalCase, 'modified', scenario) };
      case 'not_required':
        return { state: 'decided', decision: this.decision(portalCase, 'not_required', scenario) };
      default:
        return { state: 'decided', decision: this.decision(portalCase, 'approved', scenario) };
    }
  }

  /** Every call: sandbox cases only, the simulated latency, then the case's scenario. */
  private async enter(portalCase: PortalCase): Promise<SandboxScenario> {
    if (portalCase.environment !== 'sandbox') {
      throw new PayerPortalError(
        'payer_portal_unavailable',
        'The sandbox payer only answers cases of the sandbox environment.',
        { transient: false },
      );
    }
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    return scenarioOf(portalCase);
  }

  private receipt(idempotencyKey: string, scenario: SandboxScenario, referenceNumber: string): PayerReceipt {
    return {
      receivedAt: crossingTimeOf(idempotencyKey) ?? this.clock.now(),
      referenceNumber,
      channel: SANDBOX_CHANNEL,
      payerStatusText: 'Received by the sandbox payer',
      details: { sandboxScenario: scenario },
    };
  }

  private decision(
    portalCase: PortalCase,
    outcome: PayerDecision['outcome'],
    scenario: SandboxScenario,
  ): PayerDecision {
    const now = this.clock.now();
    const window = (days: number) => ({
      effectiveFrom: isoDate(now),
      effectiveTo: isoDate(new Date(now.getTime() + days * DAY_MS)),
    });
    const base = {
      receivedAt: now,
      outcome,
      authorizationNumber: null,
      effectiveFrom: null,
      effectiveTo: null,
      modifications: [],
      denialReasons: [],
      details: { sandboxScenario: scenario },
    };
    const authorizationNumber = `SBXA-${digest(`authorization:${portalCase.authorizationId}`, 10)}`;
    switch (outcome) {
      case 'approved':
        return { ...base, authorizationNumber, payerStatusText: 'Approved', ...window(180) };
      case 'modified':
        return {
          ...base,
          authorizationNumber,
          payerStatusText: 'Approved with modifications',
          ...window(90),
          modifications: ['Approved for 90 days instead of the requested 180 days.'],
        };
      case 'denied':
        return {
          ...base,
          payerStatusText: 'Denied',
          denialReasons: ['The submitted documentation does not meet the medical necessity criteria.'],
        };
      case 'not_required':
        return { ...base, payerStatusText: 'No prior authorization required for this service' };
    }
  }
}

/** The reference number the sandbox payer gives the submission made with `idempotencyKey`. */
export function sandboxReferenceNumber(idempotencyKey: string): string {
  return `SBX-${digest(`submission:${idempotencyKey}`, 12)}`;
}

/**
 * The reference number the sandbox payer gives the request an operator submits by hand for `authorizationId`
 * (shown on the sandbox portal's session page). One per authorization: submitting again shows the same one.
 */
export function sandboxManualReferenceNumber(authorizationId: string): string {
  return `SBXM-${digest(`manual-submission:${authorizationId}`, 12)}`;
}

const digest = (text: string, length: number): string =>
  createHash('sha256').update(text, 'utf8').digest('hex').slice(0, length).toUpperCase();

/**
 * The boundary crossing encoded in the pipeline's key `<authorizationId>:<epoch ms in base 36>` (decision 8),
 * or null for any other key.
 */
function crossingTimeOf(idempotencyKey: string): Date | null {
  const separator = idempotencyKey.lastIndexOf(':');
  const encoded = idempotencyKey.slice(separator + 1);
  if (separator < 0 || !/^[0-9a-z]{1,11}$/.test(encoded)) return null;
  const ms = parseInt(encoded, 36);
  return Number.isSafeInteger(ms) && ms > 0 ? new Date(ms) : null;
}

const isoDate = (date: Date): string => date.toISOString().slice(0, 10);

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number`);
  return value;
}
