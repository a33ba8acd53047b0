import { type PayerPortal } from '@prior-auth/domain';
import {
  PlaywrightPayerPortal,
  SANDBOX_PAYER_DEMO_ACCOUNT,
  SANDBOX_RECEIPT_CHANNEL,
  SANDBOX_REVIEW_WARNING,
  SandboxPayerSitePage,
  type PlaywrightPayerPortalOptions,
} from '@prior-auth/payer-portal';
import { PDF_DOCUMENT, SandboxPayerWebsite } from '@prior-auth/test-support';

/**
 * The simulated payer website and one browser, for a test file whose cases go through the sandbox portal as
 * the worker binds it (decision 0022).
 */
export class PayerWebsite extends SandboxPayerWebsite {
  static start(): Promise<PayerWebsite> {
    return PayerWebsite.launch({ browserExecutablePath: process.env.API_TEST_BROWSER, logLevel: 'warn' });
  }

  /**
   * The sandbox portal as the worker binds it (apps/worker/src/composition.ts), on this website; `extra` adds
   * what a test needs (live sessions, a context hook).
   */
  portal(extra: Partial<PlaywrightPayerPortalOptions> = {}): PayerPortal {
    return new PlaywrightPayerPortal({
      browser: this.browser,
      site: new SandboxPayerSitePage(this.url),
      credentials: async () => SANDBOX_PAYER_DEMO_ACCOUNT,
      readAttachment: async () => PDF_DOCUMENT,
      channel: SANDBOX_RECEIPT_CHANNEL,
      reviewWarnings: [SANDBOX_REVIEW_WARNING],
      stepScreenshots: false,
      ...extra,
    });
  }
}
