/**
 * Test doubles and builders for the Authorization aggregate. Excluded from the build; other packages' tests
 * import them through `@prior-auth/domain/testing`.
 */
import type {
  DocumentRequirement,
  QuestionnaireResponse,
  QuestionnaireResponseItem,
  QuestionnaireTemplate,
  RequirementSet,
} from '../../requirements/questionnaire.types';
import { Authorization } from '../authorization.aggregate';
import type {
  AuthorizationContext,
  AuthorizationStatus,
  CreateAuthorizationInput,
  FinalSubmissionPolicy,
  IdPrefix,
  Payer,
  PayerDecision,
  PayerReceipt,
  RequirementsEvaluator,
} from '../authorization.types';

/**
 * Stand-in for the real requirements engine: required items without an answer become questions, required
 * document types not attached become documents. Conditions are ignored.
 */
export const fakeEvaluator: RequirementsEvaluator = (template, documentRequirements, response, attached) => {
  const answered = new Set(response.item.filter((i) => i.answer.length > 0).map((i) => i.linkId));
  const questions: RequirementSet['questions'] = template.groups
    .flatMap((g) => g.items)
    .filter((item) => item.required && !answered.has(item.linkId))
    .map((item) => ({ linkId: item.linkId, message: `${item.text} is required.` }));
  const documents: RequirementSet['documents'] = documentRequirements
    .filter((d) => !attached.includes(d.type))
    .map((d) => ({ type: d.type, message: d.message }));
  return { questions, documents, issues: [] };
};

export interface TestContext extends AuthorizationContext {
  /** Moves the clock forward. */
  advance(ms: number): void;
  /** Every id handed out so far, in order. */
  readonly issuedIds: string[];
}

/**
 * `evaluate` swaps in another engine (the real one, for adapters' tests); `run` goes into every id, so tests
 * sharing one database across parallel files never collide.
 */
export const createTestContext = (
  start = new Date('2026-03-02T09:00:00.000Z'),
  options: { evaluate?: RequirementsEvaluator; run?: string } = {},
): TestContext => {
  let counter = 0;
  const issuedIds: string[] = [];
  const ctx: TestContext = {
    now: new Date(start.getTime()),
    newId: (prefix: IdPrefix) => {
      counter += 1;
      const id = `${prefix}_${options.run ?? ''}${String(counter).padStart(4, '0')}`;
      issuedIds.push(id);
      return id;
    },
    evaluate: options.evaluate ?? fakeEvaluator,
    advance(ms: number) {
      ctx.now = new Date(ctx.now.getTime() + ms);
    },
    issuedIds,
  };
  return ctx;
};

export const testQuestionnaire = (): QuestionnaireTemplate => ({
  id: 'tpl_uhc_mri',
  version: '2026-01',
  title: 'Outpatient imaging',
  groups: [
    {
      id: 'patient',
      title: 'Patient',
      items: [
        { linkId: 'patient.memberId', text: 'Member ID', required: true, answerType: 'string' },
        { linkId: 'patient.firstName', text: 'First name', required: true, answerType: 'string' },
        { linkId: 'patient.lastName', text: 'Last name', required: true, answerType: 'string' },
        { linkId: 'patient.birthDate', text: 'Date of birth', required: true, answerType: 'date' },
      ],
    },
    {
      id: 'request',
      title: 'Request',
      items: [
        { linkId: 'request.expedited', text: 'Expedited review', required: false, answerType: 'boolean' },
        { linkId: 'request.notes', text: 'Notes', required: false, answerType: 'string' },
      ],
    },
  ],
});

export const clinicalNotesRequirement = (): DocumentRequirement => ({
  type: 'clinical_notes',
  label: 'Clinical notes',
  message: 'Attach clinical notes supporting medical necessity.',
});

export const completeAnswers = (): QuestionnaireResponseItem[] => [
  { linkId: 'patient.memberId', answer: [{ valueString: 'M123456789' }] },
  { linkId: 'patient.firstName', answer: [{ valueString: 'Ada' }] },
  { linkId: 'patient.lastName', answer: [{ valueString: 'Lovelace' }] },
  { linkId: 'patient.birthDate', answer: [{ valueDate: '1980-12-10' }] },
];

export const testPayer = (): Payer => ({
  id: 'payer_uhc',
  displayName: 'UnitedHealthcare',
  supportedStates: ['CA', 'NY'],
  supportedServiceTypes: ['outpatient', 'inpatient'],
  aliases: ['UHC'],
  status: 'active',
  brand: 'UnitedHealth Group',
  lineOfBusiness: 'commercial',
});

export const createInput = (
  overrides: Partial<Omit<CreateAuthorizationInput, 'id'>> = {},
): CreateAuthorizationInput => ({
  organizationId: 'org_1',
  environment: 'sandbox',
  policy: { finalSubmission: 'automatic' },
  providerNpi: '1234567893',
  payer: testPayer(),
  templateSelection: {
    payerId: 'payer_uhc',
    insuranceState: 'CA',
    serviceType: 'outpatient',
    serviceCode: '70553',
    serviceCodeSystem: 'cpt',
  },
  routeId: 'route_uhc_ca_outpatient',
  portalAuthMode: 'automated',
  questionnaire: testQuestionnaire(),
  documentRequirements: [clinicalNotesRequirement()],
  ...overrides,
});

export const response = (items: QuestionnaireResponseItem[]): QuestionnaireResponse => ({ item: items });

export const clinicalNotesFile = {
  fileId: 'file_1',
  documentTypes: ['clinical_notes'],
  label: 'notes.pdf',
  description: null,
};

export const testReceipt = (receivedAt = new Date('2026-03-02T10:00:00.000Z')): PayerReceipt => ({
  receivedAt,
  referenceNumber: 'REF-001',
  channel: 'portal',
  payerStatusText: 'Received',
  details: {},
});

export const testDecision = (overrides: Partial<PayerDecision> = {}): PayerDecision => ({
  receivedAt: new Date('2026-03-04T10:00:00.000Z'),
  outcome: 'approved',
  authorizationNumber: 'AUTH-42',
  payerStatusText: 'Approved',
  effectiveFrom: '2026-03-04',
  effectiveTo: '2026-06-04',
  modifications: [],
  denialReasons: [],
  details: {},
  ...overrides,
});

export interface Arranged {
  auth: Authorization;
  ctx: TestContext;
}

/**
 * An authorization in the given status, reached only through public behaviour. `requires_input` has all
 * answers but lacks the clinical notes document, so one attach moves it on.
 */
export const authorizationIn = (
  status: AuthorizationStatus,
  policy: FinalSubmissionPolicy = 'automatic',
): Arranged => {
  const ctx = createTestContext();
  const auth = Authorization.create(
    createInput({ policy: { finalSubmission: policy }, questionnaireResponse: response(completeAnswers()) }),
    ctx,
  );
  const step = (s: AuthorizationStatus): void => {
    switch (s) {
      case 'requires_input':
        return;
      case 'requires_confirmation':
        step('requires_input');
        auth.attachFile(clinicalNotesFile, ctx);
        return;
      case 'processing':
        step('requires_confirmation');
        auth.confirm(auth.nextAction?.id, ctx);
        return;
      case 'requires_action':
        step('processing');
        auth.requireManualInteraction({ reason: 'captcha', description: 'Solve the portal CAPTCHA.' }, ctx);
        return;
      case 'waiting_on_payer':
        step('processing');
        crossBoundary(auth, ctx);
        auth.recordReceipt(testReceipt(ctx.now), ctx);
        return;
      case 'completed':
        step('waiting_on_payer');
        auth.recordDecision(testDecision(), ctx);
        return;
      case 'canceled':
        step('requires_input');
        auth.cancel(ctx);
        return;
    }
  };
  step(status);
  auth.pullEvents();
  return { auth, ctx };
};

/** From processing: cross the final submission boundary the way the policy prescribes. */
export const crossBoundary = (auth: Authorization, ctx: AuthorizationContext): void => {
  if (auth.policy.finalSubmission === 'automatic') {
    auth.crossFinalBoundary(ctx);
    return;
  }
  auth.requestFinalApproval({ summary: {}, warnings: [], liveViewUrl: null }, ctx);
  auth.confirm(auth.nextAction?.id, ctx);
};
