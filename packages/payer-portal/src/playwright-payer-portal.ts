import {
  PayerPortalError,
  type Answer,
  type DecisionPoll,
  type PayerDecision,
  type PayerPortal,
  type PayerReceipt,
  type PortalCase,
  type PortalCaseAttachment,
  type PortalDiscovery,
  type PortalEvidence,
  type PortalValidation,
  type PreparedSubmission,
  type RequirementIssue,
  type SubmissionLookup,
  type SubmitResult,
} from '@prior-auth/domain';
import { errors as playwrightErrors, type BrowserContext, type Page } from 'playwright-core';
import { BrowserUnavailableError } from './browser/browser-executable';
import { type ChromiumBrowser } from './browser/chromium-browser';
import {
  type PayerSitePage,
  type PortalCredentials,
  type SiteReceipt,
  type SiteStatus,
} from './sites/payer-site.page';

export interface PlaywrightPayerPortalOptions {
  /** The process's one browser (shared by every adapter of the process). */
  browser: ChromiumBrowser;
  /** The payer's page script, e.g. `new SandboxPayerSitePage(baseUrl)`. */
  site: PayerSitePage;
  /** The sign-in for a case (per organization and payer). */
  credentials: (portalCase: PortalCase) => Promise<PortalCredentials>;
  /** The verified bytes of an attached document (the worker reads them from the BlobStore). */
  readAttachment: (attachment: PortalCaseAttachment) => Promise<Uint8Array>;
  /** The `channel` of receipts (default `payer_portal`). */
  channel?: string;
  /** How long one page load may take (default 15 s). */
  navigationTimeoutMs?: number;
  /** How long a whole portal run may take before its context is closed (default 120 s). */
  runTimeoutMs?: number;
  /** Whether to capture a screenshot after every step (default true). */
  stepScreenshots?: boolean;
  /** Tests only: adjusts each fresh context (e.g. to break the network at a chosen moment). */
  configureContext?: (context: BrowserContext) => Promise<void>;
}

interface Run {
  page: Page;
  evidence: PortalEvidence[];
  /** A screenshot after a step; `always` even when step screenshots are off (what an operator must see). */
  step(name: string, always?: boolean): Promise<void>;
}

const DEFAULT_CHANNEL = 'payer_portal';

/** Answers to a submit click that prove nothing reached the payer. */
const DEFINITE_REFUSALS: ReadonlySet<string> = new Set([
  'payer_rejected_submission',
  'portal_validation_failed',
]);

const answerText = (answer: Answer | undefined): string | null => {
  if (!answer) return null;
  if (answer.valueString !== undefined) return answer.valueString;
  if (answer.valueDate !== undefined) return answer.valueDate;
  if (answer.valueBoolean !== undefined) return answer.valueBoolean ? 'yes' : 'no';
  if (answer.valueDecimal !== undefined) return String(answer.valueDecimal);
  if (answer.valueCoding !== undefined) return answer.valueCoding.display ?? answer.valueCoding.code;
  return null;
};

const isoDate = (date: Date) => date.toISOString().slice(0, 10);
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The PayerPortal port driven through the payer's web portal by Chromium (decision 0017). Every call runs in
 * a fresh browser context (closed afterwards, also after a crash or timeout), signs in, and follows the payer's
 * page script. `submit` is idempotent: it first searches the portal for a request made under the idempotency
 * key (typed into the form as the provider's own reference) and submits only when there is none; a submit
 * whose outcome is unknown is looked up again before the error is reported.
 */
export class PlaywrightPayerPortal implements PayerPortal {
  private readonly channel: string;

  constructor(private readonly options: PlaywrightPayerPortalOptions) {
    this.channel = options.channel ?? DEFAULT_CHANNEL;
  }

  async discover(portalCase: PortalCase): Promise<PortalDiscovery> {
    return this.run(portalCase, async ({ page, step }) => {
      await this.signIn(portalCase, page, step);
      await this.openRequestForm(portalCase, page, step);
      const answered = new Set(
        portalCase.questionnaireResponse.item.filter((i) => i.answer.length > 0).map((i) => i.linkId),
      );
      const items = (await this.options.site.readExtraQuestions(page)).filter(
        (item) => !answered.has(item.linkId),
      );
      return { items, documents: [], issues: [] };
    });
  }

  async validate(portalCase: PortalCase): Promise<PortalValidation> {
    const issues: RequirementIssue[] = [];
    for (const linkId of ['patient.memberId', 'patient.birthDate']) {
      if (!answerOf(portalCase, linkId)) {
        issues.push({
          code: 'portal_field_missing',
          message: `The payer portal needs ${linkId}.`,
          field: linkId,
          severity: 'error',
        });
      }
    }
    if (issues.length > 0) return { issues };
    return this.run(portalCase, async ({ page, step }) => {
      await this.signIn(portalCase, page, step);
      await this.options.site.chooseProvider(page, portalCase.providerNpi);
      try {
        await this.options.site.findMember(
          page,
          answerOf(portalCase, 'patient.memberId')!,
          answerOf(portalCase, 'patient.birthDate')!,
        );
      } catch (error) {
        if (error instanceof PayerPortalError && error.code === 'portal_member_not_found') {
          return {
            issues: [
              {
                code: 'member_not_found',
                message: error.message,
                field: 'patient.memberId',
                severity: 'error',
              },
            ],
          };
        }
        throw error;
      }
      await step('member_found');
      return { issues: [] };
    });
  }

  async prepareSubmission(portalCase: PortalCase): Promise<PreparedSubmission> {
    const service = this.serviceDetails(portalCase, '(assigned at submission)');
    return {
      summary: {
        channel: this.channel,
        providerNpi: portalCase.providerNpi,
        memberId: answerOf(portalCase, 'patient.memberId'),
        serviceCode: service.serviceCode,
        diagnosisCode: service.diagnosisCode,
        startDate: service.startDate,
        endDate: service.endDate,
        answeredItems: portalCase.questionnaireResponse.item.filter((item) => item.answer.length > 0).length,
        attachments: portalCase.attachments.map((a) => ({
          label: a.label,
          documentTypes: [...a.documentTypes],
        })),
      },
      warnings: [],
      liveViewUrl: null,
    };
  }

  async submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult> {
    const key = options.idempotencyKey;
    return this.run(portalCase, async (run) => {
      const { page, step, evidence } = run;
      const site = this.options.site;
      await this.signIn(portalCase, page, step);
      const earlier = await site.searchByExternalReference(page, key);
      if (earlier[0])
        return {
          receipt: await this.confirmation(run, earlier[0].referenceNumber, 'found_at_payer'),
          evidence,
        };
      await this.fillRequest(portalCase, key, run);
      if ((await site.review(page)) === 'human_check') {
        await step('human_check', true);
        return {
          needsHuman: {
            reason: 'portal_requires_human',
            description: 'The payer portal demands a human check before it accepts the request.',
          },
          evidence,
        };
      }
      await step('review');
      let submitted: SiteReceipt;
      try {
        submitted = await site.submit(page);
      } catch (error) {
        if (error instanceof PayerPortalError && DEFINITE_REFUSALS.has(error.code)) throw error;
        // Anything else leaves the outcome unknown (the request may have reached the payer): ask the portal
        // before reporting the error, so a retry never submits a second time.
        const found = await site.searchByExternalReference(page, key).catch(() => []);
        if (found[0])
          return {
            receipt: await this.confirmation(run, found[0].referenceNumber, 'found_after_unknown_result'),
            evidence,
          };
        throw error;
      }
      return { receipt: await this.captureConfirmation(run, submitted, 'submitted'), evidence };
    });
  }

  async findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<PayerReceipt | null> {
    return this.run(portalCase, async (run) => {
      await this.signIn(portalCase, run.page, run.step);
      const observed = lookup.referenceNumber?.trim();
      if (observed) {
        const receipt = await this.options.site.openConfirmation(run.page, observed);
        return receipt ? this.receipt(receipt, 'found_by_reference') : null;
      }
      const found = await this.options.site.searchByExternalReference(run.page, lookup.idempotencyKey);
      return found[0] ? this.receipt(found[0], 'found_by_key') : null;
    });
  }

  async pollDecision(portalCase: PortalCase): Promise<DecisionPoll> {
    const reference = portalCase.receipt?.referenceNumber;
    if (!reference) {
      throw new PayerPortalError(
        'portal_reference_missing',
        'The case has no payer reference number to look the decision up by.',
        {
          transient: false,
        },
      );
    }
    return this.run(portalCase, async (run) => {
      await this.signIn(portalCase, run.page, run.step);
      const status = await this.options.site.readStatus(run.page, reference);
      if (!status) {
        throw new PayerPortalError(
          'portal_request_not_found',
          `The payer portal shows no request ${reference}.`,
          { transient: false },
        );
      }
      await run.step('status');
      if (status.status === 'pending') return { state: 'pending' };
      if (status.status === 'more_information') {
        const wanted = status.documents[0] ?? {
          type: 'payer_requested_records',
          label: 'Records requested by the payer',
        };
        return {
          state: 'more_information',
          document: {
            type: wanted.type,
            label: wanted.label,
            message: `The payer asks for: ${wanted.label}.`,
          },
        };
      }
      if (status.letterAvailable) {
        const letter = await this.options.site.downloadLetter(run.page);
        run.evidence.push({
          kind: 'decision_letter',
          step: 'decision',
          contentType: 'application/pdf',
          bytes: letter,
          capturedAt: new Date(),
        });
      }
      return { state: 'decided', decision: this.decision(status), evidence: run.evidence };
    });
  }

  private decision(status: Extract<SiteStatus, { decidedAt: Date }>): PayerDecision {
    return {
      receivedAt: status.decidedAt,
      outcome: status.status,
      authorizationNumber: status.authorizationNumber,
      payerStatusText: status.statusText,
      effectiveFrom: status.effectiveFrom,
      effectiveTo: status.effectiveTo,
      modifications: status.modifications,
      denialReasons: status.denialReasons,
      details: { channel: this.channel },
    };
  }

  private receipt(receipt: SiteReceipt, how: string): PayerReceipt {
    return {
      receivedAt: receipt.receivedAt,
      referenceNumber: receipt.referenceNumber,
      channel: this.channel,
      payerStatusText: 'Received by the payer portal',
      details: { lookup: how },
    };
  }

  private async confirmation(run: Run, referenceNumber: string, how: string): Promise<PayerReceipt> {
    const shown = await this.options.site.openConfirmation(run.page, referenceNumber);
    if (!shown) {
      throw new PayerPortalError(
        'portal_page_changed',
        `The payer portal lists ${referenceNumber} but shows no confirmation for it.`,
        {
          transient: false,
        },
      );
    }
    return this.captureConfirmation(run, shown, how);
  }

  /** The confirmation page as proof of receipt: its HTML, a PNG and a PDF of it (decision 23). */
  private async captureConfirmation(run: Run, receipt: SiteReceipt, how: string): Promise<PayerReceipt> {
    const capturedAt = new Date();
    const html = await run.page.content();
    run.evidence.push({
      kind: 'confirmation_html',
      step: 'confirmation',
      contentType: 'text/html',
      bytes: Buffer.from(html, 'utf8'),
      capturedAt,
    });
    run.evidence.push({
      kind: 'confirmation_image',
      step: 'confirmation',
      contentType: 'image/png',
      bytes: await run.page.screenshot({ fullPage: true, type: 'png' }),
      capturedAt,
    });
    run.evidence.push({
      kind: 'confirmation_pdf',
      step: 'confirmation',
      contentType: 'application/pdf',
      bytes: await run.page.pdf(),
      capturedAt,
    });
    return this.receipt(receipt, how);
  }

  private async signIn(portalCase: PortalCase, page: Page, step: Run['step']): Promise<void> {
    await this.options.site.signIn(page, await this.options.credentials(portalCase));
    await step('signed_in');
  }

  /** From a signed-in page to the first step of a new request for the case's member. */
  private async openRequestForm(portalCase: PortalCase, page: Page, step: Run['step']): Promise<void> {
    const site = this.options.site;
    await site.chooseProvider(page, portalCase.providerNpi);
    await site.findMember(
      page,
      this.required(portalCase, 'patient.memberId'),
      this.required(portalCase, 'patient.birthDate'),
    );
    await step('member_found');
    await site.startRequest(page);
  }

  private async fillRequest(portalCase: PortalCase, key: string, run: Run): Promise<void> {
    const site = this.options.site;
    await this.openRequestForm(portalCase, run.page, run.step);
    await site.fillService(run.page, this.serviceDetails(portalCase, key));
    await run.step('service_details');
    await site.fillClinical(run.page, clinicalText(portalCase));
    await run.step('clinical_information');
    for (const attachment of portalCase.attachments) {
      const bytes = await this.options.readAttachment(attachment);
      await site.uploadDocument(run.page, {
        name: attachment.label.replace(/[^\w. -]+/g, '_').slice(0, 100) || attachment.attachmentId,
        contentType: attachment.contentType,
        bytes: Buffer.from(bytes),
        documentType: attachment.documentTypes[0] ?? 'other',
      });
      await run.step(`document_${attachment.attachmentId}`);
    }
  }

  private serviceDetails(portalCase: PortalCase, key: string) {
    const extraAnswers: Record<string, string> = {};
    for (const item of portalCase.questionnaireResponse.item) {
      const value = answerText(item.answer[0]);
      if (value !== null && item.linkId.startsWith('portal.')) extraAnswers[item.linkId] = value;
    }
    const start = extraAnswers['portal.plannedStartDate'] ?? isoDate(new Date());
    return {
      externalReference: key,
      serviceCode: portalCase.templateSelection.serviceCode,
      diagnosisCode: answerOf(portalCase, 'request.diagnosisCode') ?? 'Z00.00',
      startDate: start,
      endDate: isoDate(new Date(Date.parse(`${start}T00:00:00Z`) + 180 * DAY_MS)),
      extraAnswers,
    };
  }

  private required(portalCase: PortalCase, linkId: string): string {
    const value = answerOf(portalCase, linkId);
    if (!value)
      throw new PayerPortalError('portal_field_missing', `The payer portal needs ${linkId}.`, {
        transient: false,
        details: { linkId },
      });
    return value;
  }

  /**
   * One portal run: a fresh context, closed whatever happens; a run over its time limit is closed under it.
   * Errors leave as PayerPortalError: timeouts, lost connections and a crashed browser are transient.
   */
  private async run<T>(portalCase: PortalCase, body: (run: Run) => Promise<T>): Promise<T> {
    let context: BrowserContext | null = null;
    let timer: NodeJS.Timeout | undefined;
    const runTimeoutMs = this.options.runTimeoutMs ?? 120_000;
    try {
      context = await this.options.browser.newContext();
      context.setDefaultNavigationTimeout(this.options.navigationTimeoutMs ?? 15_000);
      context.setDefaultTimeout(this.options.navigationTimeoutMs ?? 15_000);
      await this.options.configureContext?.(context);
      const page = await context.newPage();
      const evidence: PortalEvidence[] = [];
      const screenshots = this.options.stepScreenshots ?? true;
      const run: Run = {
        page,
        evidence,
        step: async (name, always = false) => {
          if (!screenshots && !always) return;
          evidence.push({
            kind: 'step_screenshot',
            step: name,
            contentType: 'image/png',
            bytes: await page.screenshot({ type: 'png' }),
            capturedAt: new Date(),
          });
        },
      };
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(
            new PayerPortalError(
              'payer_portal_timeout',
              `The portal run took longer than ${runTimeoutMs} ms.`,
              { transient: true },
            ),
          );
          void context?.close().catch(() => undefined);
        }, runTimeoutMs);
      });
      return await Promise.race([body(run), deadline]);
    } catch (error) {
      throw toPortalError(error, portalCase);
    } finally {
      clearTimeout(timer);
      await context?.close().catch(() => undefined);
    }
  }
}

function answerOf(portalCase: PortalCase, linkId: string): string | null {
  const item = portalCase.questionnaireResponse.item.find((i) => i.linkId === linkId);
  const text = answerText(item?.answer[0]);
  return text && text.trim() ? text.trim() : null;
}

/** The questionnaire's answers as the "clinical information" text the portal asks for, one per line. */
function clinicalText(portalCase: PortalCase): string {
  const lines = portalCase.questionnaireResponse.item
    .filter((item) => !item.linkId.startsWith('portal.') && item.answer.length > 0)
    .map(
      (item) =>
        `${item.linkId}: ${item.answer
          .map(answerText)
          .filter((t) => t !== null)
          .join(', ')}`,
    );
  return lines.length > 0 ? lines.join('\n') : 'No questionnaire answers.';
}

function toPortalError(error: unknown, portalCase: PortalCase): PayerPortalError {
  if (error instanceof PayerPortalError) return error;
  const details = { authorizationId: portalCase.authorizationId };
  if (error instanceof BrowserUnavailableError) {
    return new PayerPortalError('browser_unavailable', error.message, { transient: true, details });
  }
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  if (error instanceof playwrightErrors.TimeoutError) {
    return new PayerPortalError(
      'payer_portal_timeout',
      `The payer portal did not answer in time: ${message}`,
      { transient: true, details },
    );
  }
  if (/net::ERR_/.test(message)) {
    return new PayerPortalError(
      'payer_portal_unreachable',
      `The payer portal could not be reached: ${message}`,
      { transient: true, details },
    );
  }
  if (/has been closed|Target crashed|Browser closed|disconnected/i.test(message)) {
    return new PayerPortalError('browser_crashed', `The browser stopped during the portal run: ${message}`, {
      transient: true,
      details,
    });
  }
  return new PayerPortalError('portal_automation_failed', `The portal run failed: ${message}`, {
    transient: true,
    details,
  });
}
