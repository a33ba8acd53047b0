import { type Page } from 'playwright-core';
import { SandboxPayerSitePage } from './sandbox-payer-site.page';

/** The words the simulated payer's human check shows in its picture (apps/payer-sandbox). */
export const SANDBOX_HUMAN_CHECK_WORDS = 'verify human';

/**
 * The simulated payer's portal as a person uses it: the same pages, but the human check on the review page is
 * answered, as an operator does after a manual handoff (decision 0007). Tests and demonstrations only: the
 * automation itself never passes the check.
 */
export class SandboxOperatorSitePage extends SandboxPayerSitePage {
  override async review(page: Page): Promise<'ready' | 'human_check'> {
    const shown = await super.review(page);
    if (shown === 'human_check') await page.fill('#human-answer', SANDBOX_HUMAN_CHECK_WORDS);
    return 'ready';
  }
}
