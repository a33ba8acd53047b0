import { SandboxPayerSitePage, totpCode, type PortalCredentials } from '@prior-auth/payer-portal';
import { Client } from 'pg';
import { databaseUrl, useSandboxAndBrowser, createOwnAccount } from './support/portal-harness';

/*
 * The website takes each one-time code once per user, as a real portal may (RFC 6238 section 5.2), and the page
 * script's sign-in then waits for the authenticator's next code instead of failing
 * (docs/decisions/0043-page-scripts-load-nothing-mid-run.md).
 */

const fixture = useSandboxAndBrowser({ oneTimeCodes: 'once' });
let db: Client;

beforeAll(async () => {
  db = new Client({ connectionString: databaseUrl() });
  await db.connect();
});
afterAll(() => db?.end());

const ownAccount = (): Promise<PortalCredentials> => createOwnAccount(db, 'code');

const usedSteps = async (username: string): Promise<number[]> =>
  (
    await db.query(
      'SELECT time_step::int AS step FROM payer_sandbox.used_codes WHERE username = $1 ORDER BY time_step',
      [username],
    )
  ).rows.map((row: { step: number }) => row.step);

/** Signs in by hand with `code` in a browser of its own; answers the page the code led to and its alert. */
async function signInWith(account: PortalCredentials, code: string) {
  const context = await fixture.browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${fixture.sandbox.url}/sign-in`);
    await page.fill('#username', account.username);
    await page.fill('#password', account.password);
    await page.click('#sign-in');
    await page.locator('body[data-page="verify-code"]').waitFor();
    await page.fill('#code', code);
    await page.click('#verify');
    // The verify page had no alert: the next page is either signed in or the same page with the refusal.
    await page.locator('body[data-page="choose-provider"], [role="alert"]').first().waitFor();
    const shown = await page.locator('body').getAttribute('data-page');
    const alert = page.locator('[role="alert"]');
    return {
      shown,
      error: (await alert.count()) > 0 ? await alert.first().getAttribute('data-error') : null,
    };
  } finally {
    await context.close();
  }
}

/** The page script's sign-in in a browser of its own: the page it ended on and the codes the portal refused. */
async function scriptSignIn(account: PortalCredentials): Promise<{ shown: string | null; refused: number }> {
  const context = await fixture.browser.newContext();
  try {
    const page = await context.newPage();
    let refused = 0;
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/sign-in/verify' && response.status() === 401) refused += 1;
    });
    await new SandboxPayerSitePage(fixture.sandbox.url).signIn(page, account);
    return { shown: await page.locator('body').getAttribute('data-page'), refused };
  } finally {
    await context.close();
  }
}

describe('one-time codes at the simulated payer website', () => {
  it('refuses a code the same user already signed in with', async () => {
    const account = await ownAccount();
    const code = totpCode(account.totpSecret);
    expect(await signInWith(account, code)).toEqual({ shown: 'choose-provider', error: null });
    expect(await signInWith(account, code)).toEqual({ shown: 'verify-code', error: 'code-used' });
    // Another user's sign-in with the same code is theirs to spend.
    const other = await ownAccount();
    expect((await signInWith(other, code)).shown).toBe('choose-provider');
  });

  it('signs in twice within one step: the second sign-in waits for the next code', async () => {
    // The second sign-in collides only when it makes its code in the first's step; when that step has ended
    // by then, nothing is refused and the pair is made again, on a new account.
    for (let attempt = 1; ; attempt += 1) {
      const account = await ownAccount();
      expect(await scriptSignIn(account)).toEqual({ shown: 'choose-provider', refused: 0 });
      const [first] = await usedSteps(account.username);
      const second = await scriptSignIn(account);
      expect(second.shown).toBe('choose-provider');
      const steps = await usedSteps(account.username);
      expect(steps).toHaveLength(2);
      if (second.refused === 0 && attempt < 3) {
        expect(steps[1]).toBeGreaterThan(first!);
        continue;
      }
      // Its code of the first's step was refused once; it signed in with the next step's code.
      expect(second.refused).toBe(1);
      expect(steps).toEqual([first, first! + 1]);
      return;
    }
  }, 120_000);
});
