import {
  CUSTOMER_PORTAL_SESSION_TTL_MS,
  PayerPortalError,
  type Answer,
  type CustomerPortalSessionKey,
  type CustomerPortalSessions,
  type DecisionPoll,
  type DecisionPollFinding,
  type FoundSubmission,
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
import { createHash } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { BrowserUnavailableError } from './browser/browser-executable';
import { type ChromiumBrowser } from './browser/chromium-browser';
import { captureScreenshot } from './browser/page-screenshot';
import { MemoryCustomerPortalSessions } from './memory-customer-portal-sessions';
import { type LiveRun, type LiveRunSessions } from './screencast-live-sessions';
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
  /** Warnings every final review shows (the sandbox says no real payer is involved). */
  reviewWarnings?: readonly string[];
  /** How long one page load may take (default 15 s). */
  navigationTimeoutMs?: number;
  /** How long a whole portal run may take before its context is closed (default 120 s). */
  runTimeoutMs?: number;
  /**
   * Whether to capture a screenshot after every step of a submission and of a decided status page (default
   * true). Reads that change nothing at the payer (discovery, validation, lookups, pending polls) take none.
   */
  stepScreenshots?: boolean;
  /**
   * Signed-in sessions kept per sign-in for later runs of this process (default 8; 0 signs in every run). A
   * session is resumed only by a run signing in with the same username, password and authenticator secret.
   */
  idleSessionsPerAccount?: number;
  /**
   * Makes each run's page a live session others can watch (decision 0033); runs are not shown when absent.
   */
  liveSessions?: LiveRunSessions;
  /**
   * Where the sessions customers signed in to for their `customer_login` cases are kept: a store every worker
   * shares (decision 0044). This process's memory when absent, so a case's later run elsewhere asks again.
   */
  customerSessions?: CustomerPortalSessions;
  /** How long a customer's session is kept after its last use (default 4 h; every run that uses it renews it). */
  customerSessionTtlMs?: number;
  /**
   * The link a review of a `customer_login` case carries while the customer's sign-in is held: the case's
   * live-session read (docs/decisions/0046-live-view-url-on-review.md). Reviews carry none when absent.
   */
  liveViewUrl?: (authorizationId: string) => string;
  /** Tests only: adjusts each fresh context (e.g. to break the network at a chosen moment). */
  configureContext?: (context: BrowserContext) => Promise<void>;
}

/** A signed-in portal session's cookies, as the browser stores them. */
type SessionState = Awaited<ReturnType<BrowserContext['storageState']>>;

interface Run {
  page: Page;
  /** The run's sign-in: resumes a kept session when there is one that is still live, else signs in. */
  signIn(): Promise<void>;
  evidence: PortalEvidence[];
  /** A screenshot after a step; `always` even when step screenshots are off (what an operator must see). */
  step(name: string, always?: boolean): Promise<void>;
  /**
   * Keeps the page open after the run, shown live, for the operator of a manual handoff (decision 0038); a no-op
   * when runs are not shown live.
   */
  holdForOperator(): Promise<void>;
}

const DEFAULT_CHANNEL = 'payer_portal';
const DEFAULT_IDLE_SESSIONS = 8;
/** Distinct sign-ins whose idle sessions a process keeps at once. */
const MAX_SIGN_INS_KEPT = 256;

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
 * a fresh browser context (closed afterwards, also after a crash or timeout), signs in or resumes a kept
 * session, and follows the payer's page script. `submit` is idempotent: it first searches the portal for a request made under the idempotency
 * key (typed into the form as the provider's own reference) and submits only when there is none; a submit
 * whose outcome is unknown is looked up again before the error is reported.
 */
export class PlaywrightPayerPortal implements PayerPortal {
  private readonly channel: string;
  /** Signed-in sessions no run is using, per sign-in (see `run` and `signInKey`). */
  private readonly idleSessions = new Map<string, SessionState[]>();
  /**
   * Per case in `customer_login` mode, the portal session the customer signed in to on a kept page (decisions
   * 0039, 0044): the case's later runs go on from it. Its cookies only, never what was typed.
   */
  private readonly customerSessions: CustomerPortalSessions;

  constructor(private readonly options: PlaywrightPayerPortalOptions) {
    this.channel = options.channel ?? DEFAULT_CHANNEL;
    this.customerSessions = options.customerSessions ?? new MemoryCustomerPortalSessions();
  }

  async discover(portalCase: PortalCase): Promise<PortalDiscovery> {
    return this.run(portalCase, { screenshots: false }, async ({ page, step, signIn }) => {
      await signIn();
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
    return this.run(portalCase, { screenshots: false }, async ({ page, step, signIn }) => {
      await signIn();
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
      warnings: [...(this.options.reviewWarnings ?? [])],
      liveViewUrl: await this.liveViewUrlOf(portalCase),
    };
  }

  /**
   * A `customer_login` case's review links to its live session while the customer's sign-in is held (decision
   * 0046): the run before this one renewed it. An automated case's sign-in is the service's own: none.
   */
  private async liveViewUrlOf(portalCase: PortalCase): Promise<string | null> {
    const link = this.options.liveViewUrl;
    if (link === undefined || portalCase.portalAuthMode !== 'customer_login') return null;
    const held = await this.customerSessions.find(customerKey(portalCase), new Date()).catch(() => null);
    return held === null ? null : link(portalCase.authorizationId);
  }

  async submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult> {
    const key = options.idempotencyKey;
    return this.run(portalCase, { screenshots: true }, async (run) => {
      const { page, step, evidence } = run;
      const site = this.options.site;
      await run.signIn();
      const earlier = await site.searchByExternalReference(page, key);
      if (earlier[0])
        return {
          receipt: await this.confirmation(run, earlier[0].referenceNumber, 'found_at_payer'),
          evidence,
        };
      await this.fillRequest(portalCase, key, run);
      if ((await site.review(page)) === 'human_check') {
        await step('human_check', true);
        // The page waits at the check for the operator, who can act in it through an interactive live view.
        await run.holdForOperator();
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

  /** A found request comes with its page at the payer as evidence, as a submit's does (decision 0020). */
  async findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<FoundSubmission | null> {
    return this.run(portalCase, { screenshots: false }, async (run) => {
      await run.signIn();
      const observed = lookup.referenceNumber?.trim();
      if (observed) {
        const shown = await this.options.site.openConfirmation(run.page, observed);
        if (!shown) return null;
        const receipt = await this.captureConfirmation(run, shown, 'found_by_reference');
        return { receipt, evidence: run.evidence };
      }
      const found = await this.options.site.searchByExternalReference(run.page, lookup.idempotencyKey);
      if (!found[0]) return null;
      const receipt = await this.confirmation(run, found[0].referenceNumber, 'found_by_key');
      return { receipt, evidence: run.evidence };
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
    const poll = { screenshots: true, found: (result: DecisionPoll) => result.state };
    return this.run(portalCase, poll, async (run) => {
      await run.signIn();
      const status = await this.options.site.readStatus(run.page, reference);
      if (!status) {
        throw new PayerPortalError(
          'portal_request_not_found',
          `The payer portal shows no request ${reference}.`,
          { transient: false },
        );
      }
      if (status.status === 'pending') return { state: 'pending' };
      await run.step('status');
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

  /** The confirmation page as proof of receipt: its HTML, a PNG and a PDF of it (decision 0030). */
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
      bytes: await captureScreenshot(run.page, { fullPage: true, type: 'png' }),
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
   *
   * Signing in (two forms and a one-time code) was a third of a case's browser time, repeated by every call
   * (docs/performance.md). A run therefore starts from an idle signed-in session of the account kept by an
   * earlier run of this process, when there is one, and checks it is still live before relying on it. A session
   * serves one run at a time (the portal keeps the request being filled in with it) and goes back to the idle
   * list only after a run that ended well. Nothing is shared between processes: each keeps its own sessions.
   */
  private async run<T>(
    portalCase: PortalCase,
    settings: {
      screenshots: boolean;
      /** The run is a decision poll: what it found decides whether its replay is kept (decision 0045). */
      found?: (result: T) => DecisionPollFinding;
    },
    body: (run: Run) => Promise<T>,
  ): Promise<T> {
    let context: BrowserContext | null = null;
    let page: Page | null = null;
    let live: LiveRun | null = null;
    let held = false;
    let awaitingCustomer = false;
    let timer: NodeJS.Timeout | undefined;
    const runTimeoutMs = this.options.runTimeoutMs ?? 120_000;
    const customer = portalCase.portalAuthMode === 'customer_login';
    try {
      // The customer signs in with their own account: the service holds no credentials for it.
      const credentials = customer ? null : await this.options.credentials(portalCase);
      const account = credentials === null ? null : signInKey(credentials);
      const kept =
        account === null
          ? await this.customerSignIn(portalCase)
          : (this.idleSessions.get(account)?.pop() ?? null);
      context = await this.options.browser.newContext(kept ? { storageState: kept } : {});
      context.setDefaultNavigationTimeout(this.options.navigationTimeoutMs ?? 15_000);
      context.setDefaultTimeout(this.options.navigationTimeoutMs ?? 15_000);
      await this.options.configureContext?.(context);
      const runPage = await context.newPage();
      page = runPage;
      const kind = settings.found === undefined ? 'other' : 'decision_poll';
      live = (await this.options.liveSessions?.begin(portalCase, runPage, kind)) ?? null;
      const evidence: PortalEvidence[] = [];
      const screenshots = settings.screenshots && (this.options.stepScreenshots ?? true);
      const site = this.options.site;
      const run: Run = {
        page: runPage,
        evidence,
        signIn: async () => {
          if (kept && (await site.resumeSession(runPage))) return;
          if (credentials !== null) return site.signIn(runPage, credentials);
          // customer_login: the run stops at the payer's sign-in page, kept for the customer (decision 0039).
          // A kept session the portal no longer honours is of no further use; one left by a failing store
          // expires anyway, so the customer is not kept from signing in by it.
          if (kept) await this.customerSessions.forget(customerKey(portalCase)).catch(() => undefined);
          await site.openSignIn(runPage);
          // Nothing the customer types is recorded in the run's replay (decision 0045).
          held = (await live?.hold('customer_sign_in')) ?? false;
          awaitingCustomer = held;
          throw new PayerPortalError(
            'customer_login_required',
            "The payer's portal needs the customer's own sign-in: sign in on the case's interactive live session.",
            { transient: false, details: { authorizationId: portalCase.authorizationId } },
          );
        },
        step: async (name, always = false) => {
          if (!screenshots && !always) return;
          evidence.push({
            kind: 'step_screenshot',
            step: name,
            contentType: 'image/png',
            // The viewport only: the steps' pages fit in it, and a full-page capture costs a second layout.
            bytes: await captureScreenshot(runPage, { type: 'png', caret: 'initial' }),
            capturedAt: new Date(),
          });
        },
        holdForOperator: async () => {
          held = (await live?.hold('manual_handoff')) ?? false;
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
      const result = await Promise.race([body(run), deadline]);
      if (settings.found !== undefined) live?.found(settings.found(result));
      // A kept page's portal session is the operator's now: no other run may resume it.
      if (held) return result;
      if (account !== null) await this.keepSession(account, context);
      else await this.keepCustomerSignIn(portalCase, context);
      return result;
    } catch (error) {
      throw toPortalError(error, portalCase);
    } finally {
      clearTimeout(timer);
      if (held && live !== null) {
        // The page stays open, its input taken, until the handoff closes or the hold runs out (decision 0038).
        const kept = live;
        const keptContext = context;
        const released = kept.whenReleased();
        const signedIn =
          awaitingCustomer && keptContext !== null && page !== null
            ? this.followCustomerSignIn(portalCase, keptContext, page, released)
            : Promise.resolve();
        void Promise.all([released, signedIn])
          .then(() => kept.end())
          .catch(() => undefined)
          .finally(() => void keptContext?.close().catch(() => undefined));
      } else {
        await live?.end();
        await context?.close().catch(() => undefined);
      }
    }
  }

  /**
   * While the customer has the kept sign-in page, watches it: once it shows the portal signed in, the session's
   * cookies are kept for the case's next runs (and refreshed until the page is let go), so the automation goes
   * on from the customer's sign-in as soon as the case resumes.
   */
  private async followCustomerSignIn(
    portalCase: PortalCase,
    context: BrowserContext,
    page: Page,
    released: Promise<void>,
  ): Promise<void> {
    let over = false;
    let kept: string | null = null;
    void released.finally(() => (over = true)).catch(() => undefined);
    while (!over && !page.isClosed()) {
      if (await this.options.site.showsSignedIn(page).catch(() => false)) {
        kept = await this.keepCustomerSignIn(portalCase, context, kept);
      }
      await Promise.race([released, new Promise((resume) => setTimeout(resume, 500))]).catch(() => undefined);
    }
    // Released right after signing in (the customer was quick): the page is still open here, looked at once more.
    if (!page.isClosed() && (await this.options.site.showsSignedIn(page).catch(() => false))) {
      await this.keepCustomerSignIn(portalCase, context, kept);
    }
  }

  /** The case's kept customer session, if any; one that no longer reads as a browser state is of no use. */
  private async customerSignIn(portalCase: PortalCase): Promise<SessionState | null> {
    const stored = await this.customerSessions.find(customerKey(portalCase), new Date());
    if (stored === null) return null;
    try {
      return JSON.parse(stored) as SessionState;
    } catch {
      await this.customerSessions.forget(customerKey(portalCase)).catch(() => undefined);
      return null;
    }
  }

  /**
   * Keeps (renews) the case's customer session: the context's cookies, never anything typed. Returns what was
   * kept, so a caller looking at the page again writes only a changed session. A store that fails costs the
   * case a second sign-in at worst, not the run: the failure is not the run's.
   */
  private async keepCustomerSignIn(
    portalCase: PortalCase,
    context: BrowserContext,
    unchanged: string | null = null,
  ): Promise<string | null> {
    const state = await context.storageState().catch(() => null);
    if (state === null || state.cookies.length === 0) return unchanged;
    const serialized = JSON.stringify(state);
    if (serialized === unchanged) return unchanged;
    const ttlMs = this.options.customerSessionTtlMs ?? CUSTOMER_PORTAL_SESSION_TTL_MS;
    try {
      await this.customerSessions.keep(customerKey(portalCase), serialized, new Date(Date.now() + ttlMs));
      return serialized;
    } catch {
      return unchanged;
    }
  }

  /** Puts a run's session back for the next run of the account (bounded: extra ones are just dropped). */
  private async keepSession(account: string, context: BrowserContext): Promise<void> {
    const limit = this.options.idleSessionsPerAccount ?? DEFAULT_IDLE_SESSIONS;
    if ((this.idleSessions.get(account)?.length ?? 0) >= limit) return;
    const state = await context.storageState().catch(() => null);
    if (state === null || state.cookies.length === 0) return;
    // Read the list again after the await: runs ending at the same time all put their sessions back.
    const idle = this.idleSessions.get(account) ?? [];
    if (idle.length >= limit) return;
    idle.push(state);
    if (!this.idleSessions.has(account) && this.idleSessions.size >= MAX_SIGN_INS_KEPT) {
      // Many organizations' sign-ins: the one kept longest goes, so a process's memory stays bounded.
      this.idleSessions.delete(this.idleSessions.keys().next().value!);
    }
    this.idleSessions.set(account, idle);
  }
}

const customerKey = (portalCase: PortalCase): CustomerPortalSessionKey => ({
  organizationId: portalCase.organizationId,
  environment: portalCase.environment,
  authorizationId: portalCase.authorizationId,
});

/**
 * Whose kept sessions a run may resume: the whole sign-in, not the username, so a run holding other (say
 * wrong or replaced) credentials for the same account never rides on a session they could not open.
 */
function signInKey(credentials: PortalCredentials): string {
  return createHash('sha256')
    .update(`${credentials.username}\u0000${credentials.password}\u0000${credentials.totpSecret}`)
    .digest('base64url');
}

function answerOf(portalCase: PortalCase, linkId: string): string | null {
  const item = portalCase.questionnaireResponse.item.find((i) => i.linkId === linkId);
  const text = answerText(item?.answer[0]);
  return text && text.trim() ? text.trim() : null;
}

/**
 * The questionnaire's answers as the "clinical information" text the portal asks for, one per line; a question
 * of a repeating group is numbered by its group instance, from 1.
 */
function clinicalText(portalCase: PortalCase): string {
  const lines = portalCase.questionnaireResponse.item
    .filter((item) => !item.linkId.startsWith('portal.') && item.answer.length > 0)
    .map(
      (item) =>
        `${item.linkId}${item.instance === undefined ? '' : ` (${item.instance + 1})`}: ${item.answer
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
  // Playwright's TimeoutError, known by its name so that this module does not load Playwright itself.
  if (error instanceof Error && error.name === 'TimeoutError') {
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
