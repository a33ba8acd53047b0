import {
  Authorization,
  evaluateRequirements,
  File,
  type AuthorizationStatus,
  type FinalSubmissionPolicy,
  type PayerDecision,
  type QuestionnaireResponseItem,
  type QuestionnaireTemplate,
  type TenantScope,
} from '@prior-auth/domain';
import {
  completeAnswers,
  createInput,
  createTestContext,
  testDecision,
  testQuestionnaire,
  type TestContext,
} from '@prior-auth/domain/testing';
import { uniqueSuffix } from '../../unit-of-work/testing/test-tenants';

/**
 * The domain's fixtures on the real requirements engine, stored by the PostgreSQL adapters. Ids are unique across
 * parallel test files, which share one database.
 */
export type { TestContext };

export const testContext = (start?: Date): TestContext =>
  createTestContext(start, { evaluate: evaluateRequirements, run: uniqueSuffix() });

/** The domain's questionnaire plus what a round trip must keep: a length limit and a decimal range. */
export const questionnaire = (): QuestionnaireTemplate => {
  const base = testQuestionnaire();
  return {
    ...base,
    groups: base.groups.map((group) =>
      group.id === 'patient'
        ? {
            ...group,
            items: group.items.map((item) =>
              item.linkId === 'patient.memberId' ? { ...item, maxLength: 20 } : item,
            ),
          }
        : {
            ...group,
            items: [
              ...group.items,
              {
                linkId: 'request.units',
                text: 'Units',
                required: false,
                answerType: 'decimal',
                min: '1',
                max: '10',
              },
            ],
          },
    ),
  };
};

export const answers = (): QuestionnaireResponseItem[] => [
  ...completeAnswers(),
  { linkId: 'request.units', answer: [{ valueDecimal: 2.5 }] },
];

export const decision = (overrides: Partial<PayerDecision> = {}): PayerDecision =>
  testDecision({ details: { source: 'portal' }, ...overrides });

/** A ready file of the tenant, as the attach use case requires. */
export const readyFile = (scope: TenantScope, ctx: { now: Date }): File => {
  const file = File.create(
    {
      ...scope,
      fileName: 'notes.pdf',
      contentType: 'application/pdf',
      purpose: 'authorization_attachment',
      sizeBytes: 2048,
    },
    { now: ctx.now, newId: (prefix) => `${prefix}_${uniqueSuffix()}` },
  );
  file.complete(
    { storedSizeBytes: 2048, sniffedContentType: 'application/pdf', checksumSha256: 'ab'.repeat(32) },
    ctx.now,
  );
  return file;
};

export const createAuthorization = (
  scope: TenantScope,
  ctx: TestContext,
  policy: FinalSubmissionPolicy = 'automatic',
) =>
  Authorization.create(
    createInput({
      ...scope,
      policy: { finalSubmission: policy },
      questionnaire: questionnaire(),
      questionnaireResponse: { item: answers() },
    }),
    ctx,
  );

/** Every stored shape worth a round trip: each status, plus the interesting variants of some. */
export const SCENARIOS = [
  'requires_input',
  'requires_input_after_portal',
  'requires_confirmation',
  'requires_confirmation_final_approval',
  'processing',
  'processing_after_approval',
  'requires_action',
  'waiting_on_payer',
  'requires_input_after_more_information',
  'completed',
  'completed_denied',
  'completed_failed',
  'canceled',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface Arranged {
  authorization: Authorization;
  /** Files the attachments reference; save them first (foreign key). */
  files: File[];
  ctx: TestContext;
}

/** An authorization in the scenario's state, reached only through the aggregate's public behaviour. */
export function arrange(scope: TenantScope, scenario: Scenario): Arranged {
  const ctx = testContext();
  const policy: FinalSubmissionPolicy = scenario.includes('approval') ? 'requires_confirmation' : 'automatic';
  const authorization = createAuthorization(scope, ctx, policy);
  const files: File[] = [];
  const attach = () => {
    const file = readyFile(scope, ctx);
    files.push(file);
    ctx.advance(1_000);
    authorization.attachFile(
      { fileId: file.id, documentTypes: ['clinical_notes'], label: 'notes.pdf', description: 'Visit notes' },
      ctx,
    );
  };
  const confirm = () => {
    ctx.advance(1_000);
    authorization.confirm(authorization.nextAction?.id, ctx);
  };
  const toProcessing = () => {
    attach();
    confirm();
  };
  const submitted = () => {
    toProcessing();
    ctx.advance(1_000);
    authorization.crossFinalBoundary(ctx);
    authorization.recordReceipt(
      {
        receivedAt: ctx.now,
        referenceNumber: 'REF-001',
        channel: 'portal',
        payerStatusText: 'Received',
        details: { page: 3 },
      },
      ctx,
    );
  };
  switch (scenario) {
    case 'requires_input':
      break;
    case 'requires_input_after_portal':
      toProcessing();
      authorization.revealPortalRequirements(
        {
          items: [
            { linkId: 'portal.referringNpi', text: 'Referring NPI', required: true, answerType: 'string' },
          ],
          documents: [
            { type: 'imaging_order', label: 'Imaging order', message: 'Attach the imaging order.' },
          ],
          issues: [
            {
              code: 'portal_warning',
              message: 'Member ID format unusual.',
              field: 'patient.memberId',
              severity: 'warning',
            },
          ],
        },
        ctx,
      );
      break;
    case 'requires_confirmation':
      attach();
      break;
    case 'requires_confirmation_final_approval':
      toProcessing();
      authorization.requestFinalApproval(
        { summary: { pages: 4, payer: 'UHC' }, warnings: ['Check dates'], liveViewUrl: null },
        ctx,
      );
      break;
    case 'processing':
      toProcessing();
      break;
    case 'processing_after_approval':
      toProcessing();
      authorization.requestFinalApproval(
        { summary: { pages: 4 }, warnings: [], liveViewUrl: 'https://live.example/x' },
        ctx,
      );
      confirm();
      break;
    case 'requires_action':
      toProcessing();
      authorization.requireManualInteraction(
        { reason: 'captcha', description: 'Solve the portal CAPTCHA.' },
        ctx,
      );
      break;
    case 'waiting_on_payer':
      submitted();
      break;
    case 'requires_input_after_more_information':
      submitted();
      authorization.requestMoreInformation(
        { type: 'lab_results', label: 'Lab results', message: 'Attach lab results.' },
        ctx,
      );
      break;
    case 'completed':
      submitted();
      authorization.recordDecision(decision(), ctx);
      break;
    case 'completed_denied':
      submitted();
      authorization.recordDecision(
        decision({ outcome: 'denied', authorizationNumber: null, denialReasons: ['Not necessary'] }),
        ctx,
      );
      break;
    case 'completed_failed':
      toProcessing();
      authorization.fail(
        { code: 'portal_rejected', message: 'The portal rejected the case.', details: { step: 'submit' } },
        ctx,
      );
      break;
    case 'canceled':
      attach();
      authorization.cancel(ctx);
      break;
  }
  authorization.pullEvents();
  return { authorization, files, ctx };
}

/** The status each scenario ends in. */
export const statusOf = (scenario: Scenario): AuthorizationStatus => {
  if (scenario.startsWith('requires_input')) return 'requires_input';
  if (scenario.startsWith('requires_confirmation')) return 'requires_confirmation';
  if (scenario.startsWith('processing')) return 'processing';
  if (scenario.startsWith('completed')) return 'completed';
  return scenario as AuthorizationStatus;
};
