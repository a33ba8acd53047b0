import { SANDBOX_PAYER_DEMO_ACCOUNT, SandboxPayerSitePage } from '@prior-auth/payer-portal';
import { useSandboxAndBrowser } from './support/portal-harness';

/*
 * A correct sign-in was refused as a `credential_or_mfa_issue` now and then: the page script loaded its TOTP
 * library at the first sign-in, a test runner refuses module loads while it is between two tests (a worker's
 * job runs on after the test that started it), and the failed load was reported as an unusable authenticator
 * secret. Signing in now loads nothing: this file makes every later load of the library fail, as then.
 */

const fixture = useSandboxAndBrowser();

afterAll(() => {
  jest.dontMock('otplib');
});

describe('signing in at the simulated payer website', () => {
  it('makes the one-time code without loading a module mid-run', async () => {
    jest.doMock('otplib', () => {
      throw new ReferenceError('You are trying to `require` a file outside of the scope of the test code.');
    });
    const context = await fixture.browser.newContext();
    try {
      const page = await context.newPage();
      await new SandboxPayerSitePage(fixture.sandbox.url).signIn(page, SANDBOX_PAYER_DEMO_ACCOUNT);
      expect(await page.locator('body').getAttribute('data-page')).toBe('choose-provider');
    } finally {
      await context.close();
    }
  });
});
