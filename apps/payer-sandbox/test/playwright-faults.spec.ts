import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import {
  SANDBOX_PAYER_DEMO_ACCOUNT,
  SANDBOX_PAYER_LOCKED_ACCOUNT,
  SandboxPayerSitePage,
} from '@prior-auth/payer-portal';
import {
  attachment,
  credentials,
  portalCase,
  portalFor,
  startTestSandbox,
  testBrowser,
  useSandboxAndBrowser,
  uniqueKey,
} from './support/portal-harness';

// Every fault the browser adapter meets at a payer portal, each a typed PayerPortalError, never a second submission.
const fixture = useSandboxAndBrowser({ portalDownResponses: 1 });

describe('PlaywrightPayerPortal faults', () => {
  it.concurrent(
    'sign-in failures are permanent and named: wrong password, locked account, wrong one-time code',
    async () => {
      const theCase = portalCase('SBX-APPROVED');
      const key = uniqueKey(theCase);
      const attempt = (account: typeof SANDBOX_PAYER_DEMO_ACCOUNT) =>
        portalFor(fixture.sandbox, fixture.browser, { credentials: credentials(account) }).submit(theCase, {
          idempotencyKey: key,
        });
      await expect(
        attempt({ ...SANDBOX_PAYER_DEMO_ACCOUNT, password: 'wrong-password' }),
      ).rejects.toMatchObject({
        code: 'portal_credentials_invalid',
        transient: false,
      });
      await expect(attempt(SANDBOX_PAYER_LOCKED_ACCOUNT)).rejects.toMatchObject({
        code: 'portal_account_locked',
        transient: false,
      });
      await expect(
        attempt({ ...SANDBOX_PAYER_DEMO_ACCOUNT, totpSecret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ' }),
      ).rejects.toMatchObject({
        code: 'credential_or_mfa_issue',
        transient: false,
      });
      // No authenticator secret stored, or one too short to make a code: the same MFA issue (decision 0021).
      for (const totpSecret of ['', 'JBSWY3DPEHPK3PXP']) {
        await expect(attempt({ ...SANDBOX_PAYER_DEMO_ACCOUNT, totpSecret })).rejects.toMatchObject({
          code: 'credential_or_mfa_issue',
          transient: false,
        });
      }
      expect(await fixture.sandbox.submissionCount(key)).toBe(0);
    },
  );

  it.concurrent('portal_down: 503 is transient; the retry submits once', async () => {
    const portal = portalFor(fixture.sandbox, fixture.browser);
    const theCase = portalCase('SBX-PORTAL-DOWN');
    const key = uniqueKey(theCase);
    await expect(portal.submit(theCase, { idempotencyKey: key })).rejects.toMatchObject({
      code: 'payer_portal_outage',
      transient: true,
      details: expect.objectContaining({ httpStatus: 503 }),
    });
    expect(await portal.submit(theCase, { idempotencyKey: key })).toHaveProperty('receipt.referenceNumber');
    expect(await fixture.sandbox.submissionCount(key)).toBe(1);
  });

  it.concurrent(
    'session_expired: the session dying mid-form is transient; the retry submits once',
    async () => {
      // Waits far longer than the run's limit: a step that waited for something the sign-in page lacks (its
      // alert) would run out the run's time and read as payer_portal_timeout, not as the ended session.
      const portal = portalFor(fixture.sandbox, fixture.browser, { navigationTimeoutMs: 600_000 });
      const theCase = portalCase('SBX-SESSION-EXPIRED');
      const key = uniqueKey(theCase);
      await expect(portal.submit(theCase, { idempotencyKey: key })).rejects.toMatchObject({
        code: 'portal_session_expired',
        transient: true,
      });
      expect(await fixture.sandbox.submissionCount(key)).toBe(0);
      expect(await portal.submit(theCase, { idempotencyKey: key })).toHaveProperty('receipt.referenceNumber');
      expect(await fixture.sandbox.submissionCount(key)).toBe(1);
    },
  );

  it.concurrent('a document the portal refuses is a permanent failure', async () => {
    const refused = attachment('clinical_notes', 'application/pdf');
    const portal = portalFor(
      fixture.sandbox,
      fixture.browser,
      {},
      new Map([[refused.fileId, Buffer.from('MZ not a document at all')]]),
    );
    const theCase = portalCase('SBX-APPROVED', { attachments: [refused] });
    const key = uniqueKey(theCase);
    await expect(portal.submit(theCase, { idempotencyKey: key })).rejects.toMatchObject({
      code: 'portal_upload_refused',
      transient: false,
    });
    expect(await fixture.sandbox.submissionCount(key)).toBe(0);
  });

  it.concurrent('a changed page (a selector gone) is permanent and names the selector', async () => {
    const redesigned = await startTestSandbox({ redesigned: true });
    try {
      const theCase = portalCase('SBX-APPROVED');
      await expect(
        portalFor(redesigned, fixture.browser).submit(theCase, { idempotencyKey: uniqueKey(theCase) }),
      ).rejects.toMatchObject({
        code: 'portal_page_changed',
        transient: false,
        details: expect.objectContaining({ selector: '#username', page: 'sign-in' }),
      });
    } finally {
      await redesigned.close();
    }
  });

  it.concurrent(
    'a portal that never answers is a transient timeout; a closed port is transient too',
    async () => {
      const silent: Server = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
        const theCase = portalCase('SBX-APPROVED');
        const portal = portalFor(fixture.sandbox, fixture.browser, {
          site: new SandboxPayerSitePage(url),
          navigationTimeoutMs: 1_000,
        });
        await expect(portal.submit(theCase, { idempotencyKey: uniqueKey(theCase) })).rejects.toMatchObject({
          code: 'payer_portal_timeout',
          transient: true,
        });
      } finally {
        silent.closeAllConnections();
        await new Promise((resolve) => silent.close(resolve));
      }
      const closed = await startTestSandbox();
      const closedUrl = closed.url;
      await closed.close();
      const theCase = portalCase('SBX-APPROVED');
      await expect(
        portalFor(fixture.sandbox, fixture.browser, { site: new SandboxPayerSitePage(closedUrl) }).submit(
          theCase,
          {
            idempotencyKey: uniqueKey(theCase),
          },
        ),
      ).rejects.toMatchObject({ code: 'payer_portal_unreachable', transient: true });
    },
  );

  it.concurrent('a run over its time limit is closed and reported as a transient timeout', async () => {
    const theCase = portalCase('SBX-APPROVED');
    const key = uniqueKey(theCase);
    await expect(
      portalFor(fixture.sandbox, fixture.browser, { runTimeoutMs: 300 }).submit(theCase, {
        idempotencyKey: key,
      }),
    ).rejects.toMatchObject({
      code: 'payer_portal_timeout',
      transient: true,
    });
    expect(await fixture.sandbox.submissionCount(key)).toBe(0);
  });

  it.concurrent(
    'a browser that dies mid-run is a transient failure; the next run relaunches it and submits once',
    async () => {
      const own = testBrowser();
      let crash = true;
      const portal = portalFor(fixture.sandbox, own, {
        configureContext: async (context) => {
          await context.route('**/requests/draft/clinical', async (route) => {
            if (crash && route.request().method() === 'POST') {
              crash = false;
              await context.browser()!.close();
              return;
            }
            await route.continue();
          });
        },
      });
      try {
        const theCase = portalCase('SBX-APPROVED');
        const key = uniqueKey(theCase);
        await expect(portal.submit(theCase, { idempotencyKey: key })).rejects.toMatchObject({
          code: 'browser_crashed',
          transient: true,
        });
        expect(await fixture.sandbox.submissionCount(key)).toBe(0);
        expect(await portal.submit(theCase, { idempotencyKey: key })).toHaveProperty(
          'receipt.referenceNumber',
        );
        expect(await fixture.sandbox.submissionCount(key)).toBe(1);
      } finally {
        await own.close();
      }
    },
  );

  it.concurrent('idempotent submit: an unknown result is looked up, never submitted twice', async () => {
    let cut = true;
    // The portal receives the submission but the browser never sees the answer: the result is unknown.
    const portal = portalFor(fixture.sandbox, fixture.browser, {
      configureContext: async (context) => {
        await context.route('**/requests/draft/submit', async (route) => {
          if (!cut) return route.continue();
          await route.fetch({ maxRedirects: 0 });
          await route.abort('connectionreset');
        });
      },
    });
    const theCase = portalCase('SBX-APPROVED');
    const key = uniqueKey(theCase);
    const first = await portal.submit(theCase, { idempotencyKey: key });
    expect(first).toMatchObject({ receipt: { details: { lookup: 'found_after_unknown_result' } } });
    expect(await fixture.sandbox.submissionCount(key)).toBe(1);
    cut = false;
    const again = await portal.submit(theCase, { idempotencyKey: key });
    expect(again).toMatchObject({
      receipt: {
        referenceNumber: (first as { receipt: { referenceNumber: string } }).receipt.referenceNumber,
      },
    });
    expect(again).toMatchObject({ receipt: { details: { lookup: 'found_at_payer' } } });
    expect(await fixture.sandbox.submissionCount(key)).toBe(1);
  });
});
