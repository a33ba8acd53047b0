import { isPayerPortalError, type PayerPortalError, type PortalCase } from '@prior-auth/domain';
import {
  DEFAULT_SANDBOX_DECISION_DELAY_MS,
  SANDBOX_CHANNEL,
  SandboxPayerPortal,
  sandboxManualReferenceNumber,
  sandboxReferenceNumber,
} from './sandbox-payer-portal';
import {
  SANDBOX_PORTAL_QUESTION_LINK_ID,
  SANDBOX_REQUESTED_DOCUMENT_TYPE,
  SANDBOX_SCENARIOS,
  scenarioForMemberId,
  type SandboxScenario,
} from './sandbox-scenarios';

const NOW = new Date('2026-03-02T09:00:00.000Z');
const CROSSED_AT = new Date('2026-03-02T08:59:58.000Z');
const KEY = `auth_1:${CROSSED_AT.getTime().toString(36)}`;

const portal = new SandboxPayerPortal({ clock: { now: () => NOW } });

const portalCase = (memberId: string | null, overrides: Partial<PortalCase> = {}): PortalCase => ({
  authorizationId: 'auth_1',
  environment: 'sandbox',
  routeId: 'route_payer_uhc_ca_outpatient_hcpcs_e0601',
  templateSelection: {
    payerId: 'payer_uhc',
    insuranceState: 'CA',
    serviceType: 'outpatient',
    serviceCode: 'E0601',
    serviceCodeSystem: 'hcpcs',
  },
  providerNpi: '1234567893',
  questionnaireResponse: {
    item: memberId === null ? [] : [{ linkId: 'patient.memberId', answer: [{ valueString: memberId }] }],
  },
  attachments: [],
  portalAuthMode: 'automated',
  receipt: null,
  ...overrides,
});

const memberIdOf = (scenario: SandboxScenario): string =>
  SANDBOX_SCENARIOS.find((info) => info.scenario === scenario)!.memberId;

const caseOf = (scenario: SandboxScenario, overrides: Partial<PortalCase> = {}) =>
  portalCase(memberIdOf(scenario), overrides);

async function portalError(call: Promise<unknown>): Promise<PayerPortalError> {
  try {
    await call;
  } catch (error) {
    if (isPayerPortalError(error)) return error;
    throw error;
  }
  throw new Error('expected a PayerPortalError');
}

describe('SANDBOX_SCENARIOS', () => {
  it('lists every scenario of decision 13 once, with distinct member IDs and descriptions', () => {
    expect(SANDBOX_SCENARIOS.map((info) => info.scenario)).toEqual([
      'approved',
      'denied',
      'modified',
      'not_required',
      'failed',
      'pending',
      'more_info',
      'portal_question',
      'manual_handoff',
    ]);
    expect(new Set(SANDBOX_SCENARIOS.map((info) => info.memberId)).size).toBe(SANDBOX_SCENARIOS.length);
    for (const info of SANDBOX_SCENARIOS) {
      expect(info.memberId).toMatch(/^SBX-[A-Z-]+$/);
      expect(info.description.length).toBeGreaterThan(20);
      expect(Object.keys(info).sort()).toEqual(['description', 'memberId', 'scenario']);
    }
  });

  it('cannot be changed by a caller', () => {
    expect(Object.isFrozen(SANDBOX_SCENARIOS)).toBe(true);
    expect(SANDBOX_SCENARIOS.every((info) => Object.isFrozen(info))).toBe(true);
  });

  it.each(SANDBOX_SCENARIOS.map((info) => [info.memberId, info.scenario]))(
    'member ID %s selects %s, ignoring case and outer spaces',
    (memberId, scenario) => {
      expect(scenarioForMemberId(memberId)).toBe(scenario);
      expect(scenarioForMemberId(`  ${memberId.toLowerCase()} `)).toBe(scenario);
    },
  );

  it.each([['W123456789'], ['SBX-UNKNOWN'], [''], [null], [undefined]])(
    'any other member ID (%p) is approved',
    (memberId) => {
      expect(scenarioForMemberId(memberId)).toBe('approved');
    },
  );
});

describe('SandboxPayerPortal', () => {
  describe('discover and validate', () => {
    it.each(SANDBOX_SCENARIOS.map((info) => [info.scenario]))(
      '%s: nothing to add and nothing wrong, except the portal question',
      async (scenario) => {
        const discovery = await portal.discover(caseOf(scenario));
        expect(discovery.documents).toEqual([]);
        expect(discovery.issues).toEqual([]);
        expect(discovery.items.map((i) => i.linkId)).toEqual(
          scenario === 'portal_question' ? [SANDBOX_PORTAL_QUESTION_LINK_ID] : [],
        );
        expect(await portal.validate(caseOf(scenario))).toEqual({ issues: [] });
      },
    );

    it('portal_question: reveals a required question of its own, also once the case answers it', async () => {
      const answered = caseOf('portal_question');
      answered.questionnaireResponse.item.push({
        linkId: SANDBOX_PORTAL_QUESTION_LINK_ID,
        answer: [{ valueDate: '2026-04-01' }],
      });
      const [item] = (await portal.discover(answered)).items;
      // The pipeline filters items the case already has, so revealing it again is harmless.
      expect(item).toMatchObject({
        linkId: SANDBOX_PORTAL_QUESTION_LINK_ID,
        required: true,
        answerType: 'date',
      });
    });
  });

  describe('prepareSubmission', () => {
    it('summarizes the case without answers and warns that the payer is simulated', async () => {
      const prepared = await portal.prepareSubmission(
        caseOf('denied', {
          attachments: [
            {
              attachmentId: 'att_1',
              fileId: 'file_1',
              documentTypes: ['clinical_notes'],
              label: 'notes.pdf',
              contentType: 'application/pdf',
              storageKey: 'sandbox/org_1/files/file_1',
            },
          ],
        }),
      );
      expect(prepared.summary).toMatchObject({
        channel: SANDBOX_CHANNEL,
        sandboxScenario: 'denied',
        payerId: 'payer_uhc',
        serviceCode: 'E0601',
        answeredItems: 1,
        attachments: [{ label: 'notes.pdf', documentTypes: ['clinical_notes'] }],
      });
      expect(JSON.stringify(prepared.summary)).not.toContain('SBX-DENIED');
      expect(prepared.warnings).toEqual([expect.stringMatching(/^Sandbox:/)]);
      expect(prepared.liveViewUrl).toBeNull();
    });
  });

  describe('submit', () => {
    const accepted: SandboxScenario[] = [
      'approved',
      'denied',
      'modified',
      'not_required',
      'pending',
      'more_info',
      'portal_question',
    ];

    it.each(accepted.map((s) => [s]))(
      '%s: a receipt that is a pure function of the idempotency key',
      async (scenario) => {
        const first = await portal.submit(caseOf(scenario), { idempotencyKey: KEY });
        const again = await new SandboxPayerPortal().submit(caseOf(scenario), { idempotencyKey: KEY });
        expect(first).toEqual(again);
        expect(first).toEqual({
          receipt: {
            receivedAt: CROSSED_AT,
            referenceNumber: sandboxReferenceNumber(KEY),
            channel: SANDBOX_CHANNEL,
            payerStatusText: 'Received by the sandbox payer',
            details: { sandboxScenario: scenario },
          },
        });
      },
    );

    it('gives another key (a new round) another reference number', async () => {
      const other = `auth_1:${(CROSSED_AT.getTime() + 1).toString(36)}`;
      expect(sandboxReferenceNumber(KEY)).toMatch(/^SBX-[0-9A-F]{12}$/);
      expect(sandboxReferenceNumber(other)).not.toBe(sandboxReferenceNumber(KEY));
      expect(sandboxReferenceNumber('auth_2:' + KEY.split(':')[1])).not.toBe(sandboxReferenceNumber(KEY));
    });

    it('dates the receipt now when the key carries no crossing time', async () => {
      const result = await portal.submit(caseOf('approved'), { idempotencyKey: 'auth_1:not-crossed' });
      expect(result).toMatchObject({ receipt: { receivedAt: NOW } });
      const noSeparator = await portal.submit(caseOf('approved'), { idempotencyKey: 'plainkey' });
      expect(noSeparator).toMatchObject({ receipt: { receivedAt: NOW } });
    });

    it('failed: a permanent portal error', async () => {
      const error = await portalError(portal.submit(caseOf('failed'), { idempotencyKey: KEY }));
      expect(error).toMatchObject({
        code: 'payer_rejected_submission',
        transient: false,
        details: { sandboxScenario: 'failed' },
      });
    });

    it('manual_handoff: the portal needs a human', async () => {
      expect(await portal.submit(caseOf('manual_handoff'), { idempotencyKey: KEY })).toEqual({
        needsHuman: { reason: 'portal_requires_human', description: expect.stringContaining('person') },
      });
    });
  });

  describe('findSubmission', () => {
    it.each(SANDBOX_SCENARIOS.map((info) => [info.scenario]))(
      '%s: a lookup by key alone finds nothing (the sandbox keeps no record; submit is idempotent)',
      async (scenario) => {
        expect(await portal.findSubmission(caseOf(scenario), { idempotencyKey: KEY })).toBeNull();
        expect(
          await portal.findSubmission(caseOf(scenario), { idempotencyKey: KEY, referenceNumber: '  ' }),
        ).toBeNull();
      },
    );

    it('finds an automated submission by the reference number it was given', async () => {
      const reference = sandboxReferenceNumber(KEY);
      const found = await portal.findSubmission(caseOf('approved'), {
        idempotencyKey: KEY,
        referenceNumber: reference,
      });
      const submitted = await portal.submit(caseOf('approved'), { idempotencyKey: KEY });
      expect(submitted).toEqual({ receipt: found });
      expect(
        await portal.findSubmission(caseOf('approved'), { idempotencyKey: KEY, referenceNumber: 'SBX-000' }),
      ).toBeNull();
      expect(
        await portal.findSubmission(caseOf('failed'), { idempotencyKey: KEY, referenceNumber: reference }),
      ).toBeNull();
    });

    it('manual_handoff: finds the submission under the reference the session page showed the operator', async () => {
      const reference = sandboxManualReferenceNumber('auth_1');
      expect(reference).toMatch(/^SBXM-[0-9A-F]{12}$/);
      const found = await portal.findSubmission(caseOf('manual_handoff'), {
        idempotencyKey: KEY,
        referenceNumber: ` ${reference.toLowerCase()} `,
      });
      expect(found).toEqual({
        receivedAt: CROSSED_AT,
        referenceNumber: reference,
        channel: SANDBOX_CHANNEL,
        payerStatusText: 'Received by the sandbox payer',
        details: { sandboxScenario: 'manual_handoff' },
      });
    });

    it('manual_handoff: finds nothing under any other reported reference', async () => {
      const lookup = (referenceNumber: string) =>
        portal.findSubmission(caseOf('manual_handoff'), { idempotencyKey: KEY, referenceNumber });
      expect(sandboxManualReferenceNumber('auth_2')).not.toBe(sandboxManualReferenceNumber('auth_1'));
      expect(await lookup('UHC-778812')).toBeNull();
      expect(await lookup(sandboxManualReferenceNumber('auth_2'))).toBeNull();
      expect(await lookup(sandboxReferenceNumber(KEY))).toBeNull();
      // The manual reference means nothing in a scenario whose submission was automated.
      expect(
        await portal.findSubmission(caseOf('approved'), {
          idempotencyKey: KEY,
          referenceNumber: sandboxManualReferenceNumber('auth_1'),
        }),
      ).toBeNull();
    });
  });

  describe('pollDecision', () => {
    const decided: Array<[SandboxScenario, string]> = [
      ['approved', 'approved'],
      ['denied', 'denied'],
      ['modified', 'modified'],
      ['not_required', 'not_required'],
      ['portal_question', 'approved'],
      ['manual_handoff', 'approved'],
    ];

    it.each(decided)('%s: decided %s', async (scenario, outcome) => {
      const poll = await portal.pollDecision(caseOf(scenario));
      expect(poll).toMatchObject({ state: 'decided', decision: { outcome, receivedAt: NOW } });
      expect(await portal.pollDecision(caseOf(scenario))).toEqual(poll);
    });

    it('answers pending until the decision delay has passed since the receipt', async () => {
      const receipt = (msAgo: number) => ({
        receipt: { referenceNumber: 'SBX-1', receivedAt: new Date(NOW.getTime() - msAgo) },
      });
      const early = await portal.pollDecision(
        portalCase('SBX-DENIED', receipt(DEFAULT_SANDBOX_DECISION_DELAY_MS - 1)),
      );
      expect(early).toEqual({ state: 'pending' });
      const due = await portal.pollDecision(
        portalCase('SBX-DENIED', receipt(DEFAULT_SANDBOX_DECISION_DELAY_MS)),
      );
      expect(due).toMatchObject({ state: 'decided', decision: { outcome: 'denied' } });
      const instant = new SandboxPayerPortal({ decisionDelayMs: 0, clock: { now: () => NOW } });
      expect(await instant.pollDecision(portalCase('SBX-DENIED', receipt(0)))).toMatchObject({
        state: 'decided',
      });
    });

    it('approved: an authorization number and a 180-day window', async () => {
      expect(await portal.pollDecision(portalCase('W123'))).toEqual({
        state: 'decided',
        decision: {
          receivedAt: NOW,
          outcome: 'approved',
          authorizationNumber: expect.stringMatching(/^SBXA-[0-9A-F]{10}$/),
          payerStatusText: 'Approved',
          effectiveFrom: '2026-03-02',
          effectiveTo: '2026-08-29',
          modifications: [],
          denialReasons: [],
          details: { sandboxScenario: 'approved' },
        },
      });
    });

    it('denied: reasons and no authorization number; modified: modifications and a number', async () => {
      expect(await portal.pollDecision(caseOf('denied'))).toMatchObject({
        decision: { authorizationNumber: null, denialReasons: [expect.any(String)], effectiveFrom: null },
      });
      expect(await portal.pollDecision(caseOf('modified'))).toMatchObject({
        decision: {
          authorizationNumber: expect.stringMatching(/^SBXA-/),
          modifications: [expect.any(String)],
          effectiveTo: '2026-05-31',
        },
      });
      expect(await portal.pollDecision(caseOf('not_required'))).toMatchObject({
        decision: { authorizationNumber: null, modifications: [], denialReasons: [] },
      });
    });

    it.each([['pending'], ['failed']] as Array<[SandboxScenario]>)('%s: never decides', async (scenario) => {
      expect(await portal.pollDecision(caseOf(scenario))).toEqual({ state: 'pending' });
    });

    it('more_info: asks for a document until it is attached, then approves', async () => {
      expect(await portal.pollDecision(caseOf('more_info'))).toEqual({
        state: 'more_information',
        document: {
          type: SANDBOX_REQUESTED_DOCUMENT_TYPE,
          label: expect.any(String),
          message: expect.any(String),
        },
      });
      const provided = caseOf('more_info', {
        attachments: [
          {
            attachmentId: 'att_2',
            fileId: 'file_2',
            documentTypes: ['clinical_notes', SANDBOX_REQUESTED_DOCUMENT_TYPE],
            label: 'records.pdf',
            contentType: 'application/pdf',
            storageKey: 'sandbox/org_1/files/file_2',
          },
        ],
      });
      expect(await portal.pollDecision(provided)).toMatchObject({
        state: 'decided',
        decision: { outcome: 'approved' },
      });
    });
  });

  describe('configuration', () => {
    it('refuses production cases on every call with a permanent error', async () => {
      const production = caseOf('approved', { environment: 'production' });
      const calls = [
        portal.discover(production),
        portal.validate(production),
        portal.prepareSubmission(production),
        portal.submit(production, { idempotencyKey: KEY }),
        portal.findSubmission(production, { idempotencyKey: KEY }),
        portal.pollDecision(production),
      ];
      for (const call of calls) {
        expect(await portalError(call)).toMatchObject({ code: 'payer_portal_unavailable', transient: false });
      }
    });

    it('decides after 2 seconds by default; the delay is configurable and never negative', () => {
      expect(new SandboxPayerPortal().decisionDelayMs).toBe(DEFAULT_SANDBOX_DECISION_DELAY_MS);
      expect(DEFAULT_SANDBOX_DECISION_DELAY_MS).toBe(2_000);
      expect(new SandboxPayerPortal({ decisionDelayMs: 50 }).decisionDelayMs).toBe(50);
      expect(() => new SandboxPayerPortal({ decisionDelayMs: -1 })).toThrow(RangeError);
      expect(() => new SandboxPayerPortal({ latencyMs: Number.NaN })).toThrow(RangeError);
    });

    it('takes the configured latency on every call', async () => {
      const slow = new SandboxPayerPortal({ latencyMs: 40 });
      const started = Date.now();
      await slow.validate(caseOf('approved'));
      expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    });
  });
});
