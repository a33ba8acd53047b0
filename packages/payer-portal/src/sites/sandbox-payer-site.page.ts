import { PayerPortalError, type QuestionnaireItemTemplate } from '@prior-auth/domain';
import { generateSync } from 'otplib';
import { type Page } from 'playwright-core';
import {
  type PayerSitePage,
  type PortalCredentials,
  type ServiceDetails,
  type SiteReceipt,
  type SiteStatus,
  type UploadedDocument,
} from './payer-site.page';

/** Every selector of the simulated payer's portal (apps/payer-sandbox); nothing else names one. */
/** The portal's pages before a session is signed in. */
const SIGN_IN_PAGES = ['sign-in', 'verify-code'];

const SELECTORS = {
  username: '#username',
  password: '#password',
  signIn: '#sign-in',
  code: '#code',
  verify: '#verify',
  providerNpi: '#provider-npi',
  chooseProvider: '#choose-provider',
  memberId: '#member-id',
  birthDate: '#birth-date',
  findMember: '#find-member',
  startRequest: '#start-request',
  externalReference: '#external-reference',
  serviceCode: '#service-code',
  diagnosisCode: '#diagnosis-code',
  startDate: '#start-date',
  endDate: '#end-date',
  extraQuestion: '[data-link-id]',
  continue: '#continue',
  clinical: '#clinical-answers',
  documentType: '#document-type',
  documentFile: '#document-file',
  uploadDocument: '#upload-document',
  continueToReview: '#continue-to-review',
  humanCheck: '[data-human-check]',
  submit: '#submit-request',
  referenceNumber: '#reference-number',
  receivedAt: '#received-at',
  searchResult: '#search-results tr[data-reference]',
  status: '#status',
  authorizationNumber: '#authorization-number',
  effectiveFrom: '#effective-from',
  effectiveTo: '#effective-to',
  denialReasons: '#denial-reasons li',
  modifications: '#modifications li',
  requestedDocuments: '#requested-documents li',
  downloadLetter: '#download-letter',
  alert: '[role="alert"]',
  fieldError: '.field-error',
  expiredNotice: '[data-notice="session-expired"]',
} as const;

const lastStatus = new WeakMap<Page, number>();

const pageName = async (page: Page): Promise<string> =>
  (await page.evaluate(() => document.body?.getAttribute('data-page') ?? null).catch(() => null)) ?? '';

const permanent = (code: string, message: string, details: Record<string, unknown> = {}) =>
  new PayerPortalError(code, message, { transient: false, details });
const transient = (code: string, message: string, details: Record<string, unknown> = {}) =>
  new PayerPortalError(code, message, { transient: true, details });

/**
 * The current one-time code, or the MFA issue a secret that cannot make one is. otplib is imported with this
 * module, never loaded mid-run: a module load at sign-in can fail for reasons that have nothing to do with the
 * secret (a test runner refuses loads between its tests), and every failure here reads as the customer's.
 */
export function totpCode(secret: string): string {
  try {
    return generateSync({ secret });
  } catch (error) {
    throw permanent(
      'credential_or_mfa_issue',
      `The stored authenticator secret cannot make a one-time code: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
}

/** The portal's answer to a code already used: the next time step's code signs in. */
const ONE_TIME_CODE_USED = 'portal_one_time_code_used';
/** How often a sign-in waits for a fresh code before giving up (transiently): each wait is one step at most. */
const MAX_CODE_WAITS = 3;
/** The authenticator's time step (RFC 6238's default, the one the portal's codes use). */
const CODE_STEP_MS = 30_000;

/**
 * Waits until the authenticator shows a code other than `used`, i.e. the next time step has begun: bounded by
 * one step, and by the page (a run that times out closes it, which ends the wait).
 */
async function nextCode(page: Page, secret: string, used: string): Promise<string> {
  for (;;) {
    const code = totpCode(secret);
    if (code !== used) return code;
    await page.waitForTimeout(CODE_STEP_MS - (Date.now() % CODE_STEP_MS) + 20);
  }
}

/** The page script of the simulated payer website. */
export class SandboxPayerSitePage implements PayerSitePage {
  constructor(private readonly baseUrl: string) {}

  async signIn(page: Page, credentials: PortalCredentials): Promise<void> {
    this.watch(page);
    await this.goto(page, '/sign-in', ['sign-in']);
    await this.fill(page, SELECTORS.username, credentials.username);
    await this.fill(page, SELECTORS.password, credentials.password);
    await this.click(page, SELECTORS.signIn, ['verify-code']);
    if (credentials.totpSecret === '') {
      throw permanent(
        'credential_or_mfa_issue',
        'The payer portal asks for a one-time code and no authenticator secret is stored.',
      );
    }
    let code = totpCode(credentials.totpSecret);
    for (let waited = 0; ; waited += 1) {
      await this.fill(page, SELECTORS.code, code);
      try {
        await this.click(page, SELECTORS.verify, ['choose-provider']);
        return;
      } catch (error) {
        const used = error instanceof PayerPortalError && error.code === ONE_TIME_CODE_USED;
        if (!used || waited >= MAX_CODE_WAITS) throw error;
      }
      // Another sign-in of the account spent this code (the portal takes each once): the next one will do.
      code = await nextCode(page, credentials.totpSecret, code);
    }
  }

  async resumeSession(page: Page): Promise<boolean> {
    // An unknown or idle session is sent to sign in; one whose code was never entered, to the code page.
    const arrived = await this.goto(page, '/providers', ['choose-provider', 'sign-in', 'verify-code']);
    return arrived === 'choose-provider';
  }

  async openSignIn(page: Page): Promise<void> {
    await this.goto(page, '/sign-in', ['sign-in']);
  }

  async showsSignedIn(page: Page): Promise<boolean> {
    if (page.isClosed() || new URL(page.url()).origin !== new URL(this.baseUrl).origin) return false;
    const shown = await page
      .locator('body[data-page]')
      .getAttribute('data-page', { timeout: 1_000 })
      .catch(() => null);
    return shown !== null && !SIGN_IN_PAGES.includes(shown);
  }

  async chooseProvider(page: Page, npi: string): Promise<void> {
    // Signing in (or resuming) ends on this page already: loading it again would only cost a round trip.
    if ((await page.locator('body[data-page="choose-provider"]').count()) === 0) {
      await this.goto(page, '/providers', ['choose-provider']);
    }
    await this.fill(page, SELECTORS.providerNpi, npi);
    await this.click(page, SELECTORS.chooseProvider, ['member-search']);
  }

  async findMember(page: Page, memberId: string, birthDate: string): Promise<void> {
    await this.fill(page, SELECTORS.memberId, memberId);
    await this.fill(page, SELECTORS.birthDate, birthDate);
    await this.click(page, SELECTORS.findMember, ['member-summary']);
  }

  async startRequest(page: Page): Promise<void> {
    await this.click(page, SELECTORS.startRequest, ['request-service']);
  }

  async readExtraQuestions(page: Page): Promise<QuestionnaireItemTemplate[]> {
    return page.locator(SELECTORS.extraQuestion).evaluateAll((inputs) =>
      inputs.map((input) => {
        const element = input as HTMLInputElement;
        const label = element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : null;
        const item: Record<string, unknown> = {
          linkId: element.dataset.linkId ?? element.name,
          text: (label ?? element.name).trim(),
          required: element.required,
          answerType: element.dataset.answerType ?? 'string',
        };
        if (element.min) item.min = element.min;
        if (element.max) item.max = element.max;
        return item as unknown as QuestionnaireItemTemplate;
      }),
    );
  }

  async fillService(page: Page, details: ServiceDetails): Promise<void> {
    await this.fill(page, SELECTORS.externalReference, details.externalReference);
    await this.fill(page, SELECTORS.serviceCode, details.serviceCode);
    await this.fill(page, SELECTORS.diagnosisCode, details.diagnosisCode);
    await this.fill(page, SELECTORS.startDate, details.startDate);
    await this.fill(page, SELECTORS.endDate, details.endDate);
    for (const [linkId, value] of Object.entries(details.extraAnswers)) {
      const field = page.locator(`[data-link-id="${linkId}"]`);
      if ((await field.count()) > 0) await field.fill(value);
    }
    await this.click(page, SELECTORS.continue, ['request-clinical']);
  }

  async fillClinical(page: Page, text: string): Promise<void> {
    await this.fill(page, SELECTORS.clinical, text);
    await this.click(page, SELECTORS.continue, ['request-documents']);
  }

  async uploadDocument(page: Page, document: UploadedDocument): Promise<void> {
    await this.require(page, SELECTORS.documentType);
    const types = await page
      .locator(`${SELECTORS.documentType} option`)
      .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    await page.selectOption(
      SELECTORS.documentType,
      types.includes(document.documentType) ? document.documentType : 'other',
    );
    await this.require(page, SELECTORS.documentFile);
    await page.setInputFiles(SELECTORS.documentFile, {
      name: document.name,
      mimeType: document.contentType,
      buffer: document.bytes,
    });
    await this.click(page, SELECTORS.uploadDocument, ['request-documents']);
  }

  async review(page: Page): Promise<'ready' | 'human_check'> {
    await this.click(page, SELECTORS.continueToReview, ['request-review']);
    return (await page.locator(SELECTORS.humanCheck).count()) > 0 ? 'human_check' : 'ready';
  }

  async submit(page: Page): Promise<SiteReceipt> {
    await this.click(page, SELECTORS.submit, ['confirmation']);
    return this.readReceipt(page);
  }

  async searchByExternalReference(page: Page, externalReference: string): Promise<SiteReceipt[]> {
    await this.goto(page, `/requests?key=${encodeURIComponent(externalReference)}`, ['request-search']);
    const rows = await page
      .locator(SELECTORS.searchResult)
      .evaluateAll((trs) =>
        trs.map((tr) => [tr.getAttribute('data-reference') ?? '', tr.getAttribute('data-received-at') ?? '']),
      );
    return rows.map(([referenceNumber, receivedAt]) => ({
      referenceNumber: referenceNumber!,
      receivedAt: new Date(receivedAt!),
    }));
  }

  async openConfirmation(page: Page, referenceNumber: string): Promise<SiteReceipt | null> {
    const arrived = await this.goto(page, `/requests/${encodeURIComponent(referenceNumber)}/confirmation`, [
      'confirmation',
      'not-found',
    ]);
    return arrived === 'not-found' ? null : this.readReceipt(page);
  }

  async readStatus(page: Page, referenceNumber: string): Promise<SiteStatus | null> {
    const arrived = await this.goto(page, `/requests/${encodeURIComponent(referenceNumber)}`, [
      'request-status',
      'not-found',
    ]);
    if (arrived === 'not-found') return null;
    await this.require(page, SELECTORS.status);
    const status = await page.locator(SELECTORS.status).getAttribute('data-status');
    const texts = (selector: string) => page.locator(selector).allTextContents();
    const optional = async (selector: string) =>
      (await page.locator(selector).count()) > 0
        ? ((await page.locator(selector).textContent()) ?? '').trim()
        : null;
    switch (status) {
      case 'pending':
        return { status: 'pending' };
      case 'more_information':
        return {
          status: 'more_information',
          documents: await page.locator(SELECTORS.requestedDocuments).evaluateAll((items) =>
            items.map((li) => ({
              type: li.getAttribute('data-document-type') ?? 'other',
              label: (li.textContent ?? '').trim(),
            })),
          ),
        };
      case 'approved':
      case 'modified':
      case 'denied':
      case 'not_required':
        return {
          status,
          statusText: ((await page.locator(SELECTORS.status).textContent()) ?? '').trim(),
          decidedAt: new Date(
            (await page.locator(SELECTORS.status).getAttribute('data-decided-at')) ?? Date.now(),
          ),
          authorizationNumber: await optional(SELECTORS.authorizationNumber),
          effectiveFrom: await optional(SELECTORS.effectiveFrom),
          effectiveTo: await optional(SELECTORS.effectiveTo),
          denialReasons: (await texts(SELECTORS.denialReasons)).map((t) => t.trim()),
          modifications: (await texts(SELECTORS.modifications)).map((t) => t.trim()),
          letterAvailable: (await page.locator(SELECTORS.downloadLetter).count()) > 0,
        };
      default:
        throw permanent(
          'portal_page_changed',
          `The payer's status page shows an unknown status "${status}".`,
        );
    }
  }

  async downloadLetter(page: Page): Promise<Buffer> {
    await this.require(page, SELECTORS.downloadLetter);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click(SELECTORS.downloadLetter),
    ]);
    const stream = await download.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  private async readReceipt(page: Page): Promise<SiteReceipt> {
    await this.require(page, SELECTORS.referenceNumber);
    await this.require(page, SELECTORS.receivedAt);
    const referenceNumber = ((await page.locator(SELECTORS.referenceNumber).textContent()) ?? '').trim();
    const receivedAt = new Date((await page.locator(SELECTORS.receivedAt).getAttribute('datetime')) ?? '');
    if (!referenceNumber || Number.isNaN(receivedAt.getTime())) {
      throw permanent('portal_page_changed', "The payer's confirmation page shows no reference number.");
    }
    return { referenceNumber, receivedAt };
  }

  private watch(page: Page): void {
    if (lastStatus.has(page)) return;
    lastStatus.set(page, 0);
    page.on('response', (response) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame())
        lastStatus.set(page, response.status());
    });
  }

  private async goto(page: Page, path: string, expected: string[]): Promise<string> {
    this.watch(page);
    const url = new URL(path, this.baseUrl).toString();
    await page.goto(url, { waitUntil: 'load' });
    try {
      return await this.arrive(page, expected);
    } catch (error) {
      // A page that loaded as no page at all (a cut-off response) is loaded once more: a GET changes nothing.
      if (!(error instanceof PayerPortalError) || error.details.page !== null) throw error;
      await page.goto(url, { waitUntil: 'load' });
      return this.arrive(page, expected);
    }
  }

  /** Clicks what submits a form or follows a link, waits for the next page and checks it is an expected one. */
  private async click(page: Page, selector: string, expected: string[]): Promise<string> {
    await this.require(page, selector);
    const navigated = page.waitForEvent('framenavigated', {
      predicate: (frame) => frame === page.mainFrame(),
    });
    // A click that fails (the run's page closed under it) fails this wait too: handled, never left unhandled.
    navigated.catch(() => undefined);
    await page.locator(selector).click();
    await navigated;
    await page.waitForLoadState('load');
    return this.arrive(page, expected);
  }

  private async fill(page: Page, selector: string, value: string): Promise<void> {
    await this.require(page, selector);
    await page.locator(selector).fill(value);
  }

  /** Server-rendered pages are complete once loaded: a missing element means the page changed, not "wait". */
  private async require(page: Page, selector: string): Promise<void> {
    if ((await page.locator(selector).count()) === 0) {
      const where =
        (await page
          .locator('body')
          .getAttribute('data-page')
          .catch(() => null)) ?? 'unknown';
      throw permanent(
        'portal_page_changed',
        `The payer's portal page changed: "${selector}" is missing on page "${where}".`,
        {
          selector,
          page: where,
        },
      );
    }
  }

  /** Names the page the browser is on, or throws the PayerPortalError that page means. */
  private async arrive(page: Page, expected: string[]): Promise<string> {
    // Read at once from the loaded page: a locator would wait (and, timing out on a busy machine, read as a
    // changed page, a permanent error).
    let name = await pageName(page);
    if (name === '' && !page.url().startsWith('chrome-error://') && (lastStatus.get(page) ?? 0) < 500) {
      // A document being replaced by a late navigation (its context destroyed) or not parsed yet reads as no
      // page: wait for the one that loads, as long as a page load may take (the run's navigation timeout), before
      // calling it unrecognised. A fixed few seconds ran out on a loaded machine and failed a case as a changed
      // portal, a permanent error.
      await page.waitForSelector('body[data-page]', { state: 'attached' }).catch(() => undefined);
      name = await pageName(page);
    }
    if (expected.includes(name)) {
      if (
        name.startsWith('request-') &&
        (await page.locator(`${SELECTORS.alert}[data-error="upload-refused"]`).count()) > 0
      ) {
        throw permanent('portal_upload_refused', await this.alertText(page));
      }
      return name;
    }
    if (page.url().startsWith('chrome-error://')) {
      throw transient(
        'payer_portal_unreachable',
        'The connection to the payer portal failed while loading a page.',
      );
    }
    const status = lastStatus.get(page) ?? 0;
    // Read at once: a locator would wait for an alert the page may not have (a sign-in page after the session
    // ended has none) for the whole navigation timeout, and a run on a loaded machine then passed its limit.
    const errorCode = await page
      .evaluate(
        (selector) => document.querySelector(selector)?.getAttribute('data-error') ?? null,
        SELECTORS.alert,
      )
      .catch(() => null);
    if (name === 'unavailable' || status === 503 || status === 502 || status === 504) {
      throw transient('payer_portal_outage', `The payer's portal is unavailable (HTTP ${status}).`, {
        httpStatus: status,
      });
    }
    if (name === 'sign-in' && (await page.locator(SELECTORS.expiredNotice).count()) > 0) {
      throw transient('portal_session_expired', "The payer's portal ended the session mid-run.");
    }
    if (name === 'sign-in' && errorCode === 'invalid-credentials') {
      throw permanent('portal_credentials_invalid', 'The payer portal refused the username or password.');
    }
    if (name === 'account-locked')
      throw permanent('portal_account_locked', 'The payer portal account is locked.');
    if (name === 'verify-code' && errorCode === 'code-used') {
      throw transient(
        ONE_TIME_CODE_USED,
        'The payer portal refused a one-time code already used by another sign-in of the account.',
      );
    }
    if (name === 'verify-code' && errorCode === 'invalid-code') {
      throw permanent(
        'credential_or_mfa_issue',
        'The payer portal refused the one-time code (check the authenticator secret).',
      );
    }
    if (name === 'member-not-found') throw permanent('portal_member_not_found', await this.alertText(page));
    if (name === 'submission-rejected')
      throw permanent('payer_rejected_submission', await this.alertText(page));
    if (name.startsWith('request-') && errorCode === 'upload-refused')
      throw permanent('portal_upload_refused', await this.alertText(page));
    if (name.startsWith('request-') || name === 'member-search') {
      const fields = await page.locator(SELECTORS.fieldError).evaluateAll((els) =>
        els.map((el) => ({
          field: el.getAttribute('data-for') ?? '',
          message: (el.textContent ?? '').trim(),
        })),
      );
      if (fields.length > 0) {
        throw permanent(
          'portal_validation_failed',
          `The payer portal refused the form: ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`,
          {
            fields,
          },
        );
      }
    }
    if (status >= 500)
      throw transient('payer_portal_outage', `The payer's portal answered HTTP ${status}.`, {
        httpStatus: status,
      });
    throw permanent(
      'portal_page_changed',
      `The payer's portal showed page "${name || 'unrecognised'}" where ${expected.join(' or ')} was expected.`,
      {
        expected,
        page: name || null,
        httpStatus: status,
      },
    );
  }

  private async alertText(page: Page): Promise<string> {
    return (
      (await page
        .locator(SELECTORS.alert)
        .first()
        .textContent()
        .catch(() => null)) ?? ''
    ).trim();
  }
}
