import { SandboxPayerSitePage, type PortalCredentials } from '@prior-auth/payer-portal';
import { Client } from 'pg';
import {
  databaseUrl,
  portalCase,
  portalFor,
  useSandboxAndBrowser,
  uniqueKey,
  createOwnAccount,
} from './support/portal-harness';

/*
 * A portal run resumes a signed-in session an earlier run of the same adapter kept, instead of signing in again
 * (docs/performance.md); a session the portal ended is noticed and replaced by a new sign-in, and concurrent
 * runs never share one (the portal keeps the request being filled in with the session).
 */

const fixture = useSandboxAndBrowser();
let db: Client;

beforeAll(async () => {
  db = new Client({ connectionString: databaseUrl() });
  await db.connect();
});
afterAll(() => db?.end());

const ownAccount = (): Promise<PortalCredentials> => createOwnAccount(db, 'reuse');

/** The page script with its sign-ins counted. */
function countingSite(url: string): { site: SandboxPayerSitePage; signIns: () => number } {
  let count = 0;
  const site = new SandboxPayerSitePage(url);
  const signIn = site.signIn.bind(site);
  site.signIn = async (page, credentials) => {
    count += 1;
    return signIn(page, credentials);
  };
  return { site, signIns: () => count };
}

const sessionsOf = async (username: string): Promise<number> =>
  (await db.query('SELECT count(*)::int AS n FROM payer_sandbox.sessions WHERE username = $1', [username]))
    .rows[0].n as number;

describe('signed-in sessions kept between runs', () => {
  it('later runs resume the kept session; one the portal ended is replaced by a new sign-in', async () => {
    const account = await ownAccount();
    const { site, signIns } = countingSite(fixture.sandbox.url);
    const portal = portalFor(fixture.sandbox, fixture.browser, { site, credentials: async () => account });
    const theCase = portalCase('SBX-APPROVED');

    const result = await portal.submit(theCase, { idempotencyKey: uniqueKey(theCase) });
    if (!('receipt' in result)) throw new Error('expected a receipt');
    const received = {
      ...theCase,
      receipt: { referenceNumber: result.receipt.referenceNumber, receivedAt: result.receipt.receivedAt },
    };
    expect(await portal.pollDecision(received)).toMatchObject({ state: 'decided' });
    expect(await portal.validate(theCase)).toEqual({ issues: [] });
    expect(signIns()).toBe(1);
    expect(await sessionsOf(account.username)).toBe(1);

    // The portal ends every session of the account (idle timeout, sign-out elsewhere): the next run notices.
    await db.query('DELETE FROM payer_sandbox.sessions WHERE username = $1', [account.username]);
    expect(await portal.pollDecision(received)).toMatchObject({ state: 'decided' });
    expect(signIns()).toBe(2);
    expect(await sessionsOf(account.username)).toBe(1);
  });

  it('concurrent runs each get a session of their own', async () => {
    const account = await ownAccount();
    const { site, signIns } = countingSite(fixture.sandbox.url);
    const portal = portalFor(fixture.sandbox, fixture.browser, { site, credentials: async () => account });
    const cases = [portalCase('SBX-APPROVED'), portalCase('SBX-DENIED')];

    const results = await Promise.all(cases.map((c) => portal.submit(c, { idempotencyKey: uniqueKey(c) })));
    for (const result of results) expect(result).toHaveProperty('receipt');
    expect(signIns()).toBe(2);
    // Both sessions are kept: two more concurrent runs sign in no more.
    await Promise.all(cases.map((c) => portal.validate(c)));
    expect(signIns()).toBe(2);
  });

  it('a run holding other credentials for the same account never resumes a kept session', async () => {
    const account = await ownAccount();
    const { site, signIns } = countingSite(fixture.sandbox.url);
    let current: PortalCredentials = account;
    const portal = portalFor(fixture.sandbox, fixture.browser, { site, credentials: async () => current });
    const theCase = portalCase('SBX-APPROVED');
    expect(await portal.validate(theCase)).toEqual({ issues: [] });
    expect(signIns()).toBe(1);

    // Replaced credentials (here wrong ones) sign in afresh and are refused, though a live session is kept.
    current = { ...account, password: 'Not-The-Password-1!' };
    await expect(portal.validate(theCase)).rejects.toMatchObject({ code: 'portal_credentials_invalid' });
    expect(signIns()).toBe(2);

    // The right credentials still find their kept session.
    current = account;
    expect(await portal.validate(theCase)).toEqual({ issues: [] });
    expect(signIns()).toBe(2);
  });
});
