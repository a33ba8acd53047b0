import { type PayerPortal } from '@prior-auth/domain';
import { type ChromiumBrowser } from '@prior-auth/payer-portal';
import { PDF_DOCUMENT, SandboxPayerWebsite } from '@prior-auth/test-support';
import { type DataSource } from 'typeorm';
import { createSandboxPayerPortal } from '../../src/composition';

export { PDF_DOCUMENT };

/**
 * The simulated payer website and the one browser of the test file's workers; its counters are read from its
 * schema.
 */
export class PayerWebsite extends SandboxPayerWebsite {
  static start(): Promise<PayerWebsite> {
    return PayerWebsite.launch({ browserExecutablePath: process.env.WORKER_TEST_BROWSER, logLevel: 'info' });
  }

  /** The sandbox portal a worker submits through: this website, this file's browser unless another is given. */
  portal(browser: ChromiumBrowser = this.browser): PayerPortal {
    return createSandboxPayerPortal({
      browser,
      siteUrl: this.url,
      readAttachment: async () => PDF_DOCUMENT,
      // Step screenshots are not what these tests check; the confirmation and the letter are always kept.
      stepScreenshots: false,
    });
  }

  /** Requests the website received under a provider's reference (the idempotency key). */
  static async submissionCount(dataSource: DataSource, key: string): Promise<number> {
    const rows: Array<{ count: number }> = await dataSource.query(
      'SELECT count(*)::int AS count FROM payer_sandbox.requests WHERE external_key = $1',
      [key],
    );
    return rows[0]!.count;
  }
}
