import {
  expectStatus,
  type ApiClient,
  type ApiResponse,
  type Authorization,
  type ErrorBody,
  type NextAction,
  type PayerReceipt,
  type ResponseItem,
} from './api-client';
import type { StackHarness } from './stack-harness';

export type FinalSubmissionPolicy = 'automatic' | 'requires_confirmation';
export const POLICIES: FinalSubmissionPolicy[] = ['automatic', 'requires_confirmation'];

/** A sandbox route of the shipped catalog: UnitedHealthcare, California, CPAP device (HCPCS E0601). */
export const CPAP_SELECTION = {
  payerId: 'payer_uhc',
  insuranceState: 'CA',
  serviceType: 'outpatient',
  serviceCode: 'E0601',
  serviceCodeSystem: 'hcpcs',
};

/** Every question of the CPAP questionnaire; the member ID picks the sandbox payer's scenario. */
const cpapAnswers = (memberId: string): ResponseItem[] => [
  { linkId: 'patient.memberId', answer: [{ valueString: memberId }] },
  { linkId: 'patient.firstName', answer: [{ valueString: 'Ada' }] },
  { linkId: 'patient.lastName', answer: [{ valueString: 'Lovelace' }] },
  { linkId: 'patient.birthDate', answer: [{ valueDate: '1961-05-14' }] },
  { linkId: 'request.diagnosisCode', answer: [{ valueString: 'G47.33' }] },
  { linkId: 'clinical.sleepStudyType', answer: [{ valueCoding: { code: 'psg' } }] },
  { linkId: 'clinical.sleepStudyDate', answer: [{ valueDate: '2026-01-10' }] },
  { linkId: 'clinical.apneaHypopneaIndex', answer: [{ valueDecimal: 22 }] },
  { linkId: 'clinical.faceToFaceDate', answer: [{ valueDate: '2026-01-05' }] },
  { linkId: 'clinical.priorPapUse', answer: [{ valueBoolean: false }] },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isError = (body: Authorization | ErrorBody): body is ErrorBody => 'error' in body;

/**
 * One authorization followed through the API. Every answer is checked the way a client relying on ETags would:
 * the ETag is the version, a command moves the version forward, a read never shows an older one.
 */
export class CaseJourney {
  readonly versions: number[] = [];
  private latest: Authorization;

  private constructor(
    private readonly api: ApiClient,
    private readonly stack: StackHarness,
    created: ApiResponse<Authorization>,
  ) {
    this.latest = created.body;
    this.observe(created, 'command');
  }

  /**
   * A case with every answer given and every required document attached: requires_confirmation, awaiting
   * `advance_case`.
   */
  static async open(
    api: ApiClient,
    stack: StackHarness,
    options: { providerNpi: string; memberId: string; policy: FinalSubmissionPolicy },
  ): Promise<CaseJourney> {
    const created = expectStatus(
      await api.create({
        providerNpi: options.providerNpi,
        templateSelection: CPAP_SELECTION,
        policy: { finalSubmission: options.policy },
        questionnaireResponse: { item: cpapAnswers(options.memberId) },
      }),
      201,
      'create an authorization',
    );
    const journey = new CaseJourney(api, stack, created);
    expect(created.body).toMatchObject({
      status: 'requires_input',
      policy: { finalSubmission: options.policy },
      requirements: { questions: [] },
      nextAction: { type: 'provide_requirements', owner: 'customer' },
    });
    // What the route still needs is read from the case, as a client would.
    const documentTypes = created.body.requirements.documents.map((d) => d.type);
    expect(documentTypes.length).toBeGreaterThan(0);
    const ready = await journey.attachPdf(documentTypes);
    expect(ready).toMatchObject({
      status: 'requires_confirmation',
      requirements: { questions: [], documents: [], issues: [] },
      nextAction: { type: 'advance_case', owner: 'customer' },
    });
    return journey;
  }

  get id(): string {
    return this.latest.id;
  }

  get current(): Authorization {
    return this.latest;
  }

  /** Confirms the open next action, which must be of `type`; the case goes to processing. */
  async confirm(type: NextAction['type']): Promise<Authorization> {
    const action = this.latest.nextAction;
    expect(action?.type).toBe(type);
    const confirmed = await this.command(
      this.api.confirm(this.id, this.latest.version, action!.id),
      `confirm ${type}`,
    );
    expect(confirmed).toMatchObject({ status: 'processing', nextAction: null });
    return confirmed;
  }

  patch(items: ResponseItem[]): Promise<Authorization> {
    return this.command(this.api.patchAnswers(this.id, this.latest.version, items), 'patch answers');
  }

  async attachPdf(documentTypes: string[]): Promise<Authorization> {
    const fileId = await this.api.uploadPdf(`${documentTypes.join('-')}.pdf`);
    return this.command(
      this.api.attach(this.id, this.latest.version, fileId, documentTypes),
      'attach a file',
    );
  }

  cancel(): Promise<Authorization> {
    return this.command(this.api.cancel(this.id, this.latest.version), 'cancel');
  }

  async refresh(): Promise<Authorization> {
    const response = expectStatus(await this.api.get(this.id), 200, `get ${this.id}`);
    return this.observe(response, 'read');
  }

  /**
   * Reads the case until `predicate` holds (portal runs go through a browser); fails early when an app died. The
   * default allows four minutes: on a loaded two-core machine a file's concurrent cases share one worker's
   * browser, and a case that merely waits its turn must not read as stuck (a stuck one still fails, with the
   * worker's lines about it).
   */
  async waitFor(
    predicate: (a: Authorization) => boolean,
    description: string,
    timeoutMs = 240_000,
  ): Promise<Authorization> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.stack.assertRunning();
      const seen = await this.refresh();
      if (predicate(seen)) return seen;
      if (Date.now() > deadline) {
        throw new Error(
          `${this.id} never became ${description}: last status ${seen.status}, next action ${seen.nextAction?.type ?? 'none'}\n${this.stack.workerLinesAbout(this.id)}`,
        );
      }
      await sleep(100);
    }
  }

  waitForStatus(status: string, timeoutMs?: number): Promise<Authorization> {
    return this.waitFor((a) => a.status === status, status, timeoutMs);
  }

  waitForAction(type: NextAction['type'], timeoutMs?: number): Promise<Authorization> {
    return this.waitFor((a) => a.nextAction?.type === type, `awaiting ${type}`, timeoutMs);
  }

  private async command(call: Promise<ApiResponse<Authorization | ErrorBody>>, what: string) {
    const response = expectStatus(await call, 200, `${what} on ${this.id}`);
    return this.observe(response as ApiResponse<Authorization>, 'command');
  }

  private observe(response: ApiResponse<Authorization>, kind: 'command' | 'read'): Authorization {
    if (isError(response.body)) throw new Error(`not an authorization: ${JSON.stringify(response.body)}`);
    const { version } = response.body;
    expect(response.etag).toBe(`"${version}"`);
    const previous = this.versions.at(-1);
    if (previous !== undefined) {
      if (kind === 'command') expect(version).toBeGreaterThan(previous);
      else expect(version).toBeGreaterThanOrEqual(previous);
    }
    this.versions.push(version);
    this.latest = response.body;
    return response.body;
  }
}

/** A receipt of the simulated payer website. */
export function expectSandboxReceipt(receipt: PayerReceipt | null): PayerReceipt {
  expect(receipt).toMatchObject({
    referenceNumber: expect.stringMatching(/^PSX-[0-9A-F]{10}$/),
    channel: 'sandbox_portal',
    receivedAt: expect.any(String),
  });
  return receipt!;
}

/**
 * From `advance_case` to the payer. Under requires_confirmation the worker first prepares the final review,
 * which must not have reached the payer yet; the test approves it as the customer would.
 */
export async function submitThroughReview(
  journey: CaseJourney,
  policy: FinalSubmissionPolicy,
  reviewTimeoutMs?: number,
): Promise<void> {
  const receiptBefore = journey.current.submission.payerReceipt;
  await journey.confirm('advance_case');
  if (policy === 'automatic') return;
  const review = await journey.waitForAction('approve_submission', reviewTimeoutMs);
  expect(review.status).toBe('requires_confirmation');
  expect(review.nextAction).toMatchObject({
    owner: 'customer',
    reviewSnapshotId: review.submission.reviewSnapshot?.id,
  });
  expect(review.submission.reviewSnapshot).toMatchObject({
    status: 'current',
    kind: 'final_submission',
    summary: {
      channel: 'sandbox_portal',
      memberId: journey.current.questionnaireResponse.item.find((i) => i.linkId === 'patient.memberId')
        ?.answer[0]?.valueString,
      serviceCode: 'E0601',
    },
    questionnaireResponse: journey.current.questionnaireResponse,
    warnings: [expect.stringMatching(/^Sandbox:/)],
  });
  expect(review.submission.payerReceipt).toEqual(receiptBefore);
  await journey.confirm('approve_submission');
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Days between two ISO dates of a decision's window. */
export const windowDays = (from: string | null, to: string | null): number =>
  (Date.parse(to!) - Date.parse(from!)) / DAY_MS;
