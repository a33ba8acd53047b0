import { type PortalCase } from '@prior-auth/domain';
import {
  ChromiumBrowser,
  PlaywrightPayerPortal,
  SANDBOX_PAYER_DEMO_ACCOUNT,
  SandboxOperatorSitePage,
} from '@prior-auth/payer-portal';
import { type Authorization } from './api-client';
import { CPAP_SELECTION } from './case-helpers';

/** A minimal valid PDF: what the operator uploads (the website accepts only real PDF bytes). */
const PDF_DOCUMENT = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/**
 * An operator after a manual handoff, in a browser of their own: signs in at the simulated payer website,
 * fills in the case as the integrator's API shows it, answers the human check and submits, then reports the
 * reference number the website's confirmation page showed. Started in beforeAll: its first run signs in, which
 * loads the one-time-code library before the file's concurrent tests run (Jest loads no module between tests).
 */
export class PayerOperator {
  private constructor(
    private readonly browser: ChromiumBrowser,
    private readonly operator: PlaywrightPayerPortal,
  ) {}

  static async start(siteUrl: string): Promise<PayerOperator> {
    const browser = new ChromiumBrowser({ executablePath: process.env.E2E_TEST_BROWSER });
    const operator = new PlaywrightPayerPortal({
      browser,
      site: new SandboxOperatorSitePage(siteUrl),
      credentials: async () => SANDBOX_PAYER_DEMO_ACCOUNT,
      readAttachment: async () => PDF_DOCUMENT,
      stepScreenshots: false,
    });
    const started = new PayerOperator(browser, operator);
    try {
      // Signs in and looks up a reference the website never gave: nothing is found, nothing is submitted.
      const found = await operator.findSubmission(started.portalCase(null), {
        idempotencyKey: 'operator-warm-up',
        referenceNumber: 'PSX-0000000000',
      });
      if (found !== null) throw new Error('the payer website showed a request that was never made');
      return started;
    } catch (error) {
      await browser.close();
      throw error;
    }
  }

  /** Submits the case at the website by hand; returns the reference number its confirmation showed. */
  async submit(authorization: Authorization): Promise<string> {
    const result = await this.operator.submit(this.portalCase(authorization), {
      idempotencyKey: `${authorization.id}:operator`,
    });
    if (!('receipt' in result)) throw new Error('the operator could not submit at the payer website');
    return result.receipt.referenceNumber!;
  }

  close(): Promise<void> {
    return this.browser.close();
  }

  /** The case as the operator reads it from the API (the warm-up's is empty). */
  private portalCase(authorization: Authorization | null): PortalCase {
    return {
      authorizationId: authorization?.id ?? 'auth_operator_warm_up',
      // The sandbox signs every organization in with its demo account; the website never sees this id.
      organizationId: 'org_sandbox_operator',
      environment: 'sandbox',
      routeId: 'route_sandbox_e0601',
      templateSelection: CPAP_SELECTION as PortalCase['templateSelection'],
      providerNpi: authorization?.providerNpi ?? '1234567893',
      questionnaireResponse: (authorization?.questionnaireResponse ?? {
        item: [],
      }) as PortalCase['questionnaireResponse'],
      attachments: (authorization?.attachments ?? []).map((attachment) => ({
        attachmentId: attachment.id,
        fileId: attachment.fileId,
        documentTypes: attachment.documentTypes,
        label: `${attachment.documentTypes.join('-')}.pdf`,
        contentType: 'application/pdf',
        storageKey: attachment.fileId,
      })),
      portalAuthMode: 'automated',
      receipt: null,
    };
  }
}
