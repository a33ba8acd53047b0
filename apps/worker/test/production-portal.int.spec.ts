import { SANDBOX_PAYER_DEMO_ACCOUNT, SANDBOX_PAYER_LOCKED_ACCOUNT } from '@prior-auth/payer-portal';
import { TypeOrmPortalCredentials } from '@prior-auth/persistence-postgres';
import { createProductionPayerPortal } from '../src/production-portal';
import { CPAP_SELECTION, Harness, testCredentialsCipher } from './support/harness';
import { PayerWebsite, PDF_DOCUMENT } from './support/payer-website';

/*
 * Production through a real browser (decision 0021): the simulated payer website stands in for a payer whose
 * portal connection names the `sandbox-payer-site` page script, and each organization signs in with its own
 * stored, encrypted credentials. Only this file connects payer_aetna (an automated-only route).
 */

const PAYER = 'payer_aetna';
const CASE_TIMEOUT_MS = 90_000;

let website: PayerWebsite;
let h: Harness;
const others: Harness[] = [];

/** A production organization whose cases go to payer_aetna, signing in with `credentials`. */
async function organization(
  credentials: { username: string; password: string; totpSecret: string | null } | null,
): Promise<Harness> {
  const harness = await Harness.open('production');
  harness.templateSelection = { ...CPAP_SELECTION, payerId: PAYER };
  await harness.connectPayerPortal(
    PAYER,
    { baseUrl: website.url, pageScript: 'sandbox-payer-site' },
    credentials,
  );
  return harness;
}

beforeAll(async () => {
  website = await PayerWebsite.start();
  h = await organization(SANDBOX_PAYER_DEMO_ACCOUNT);
  await h.startWorker({
    portals: {
      production: createProductionPayerPortal({
        dataSource: h.dataSource,
        browser: website.browser,
        cipher: testCredentialsCipher(),
        readAttachment: async () => PDF_DOCUMENT,
        stepScreenshots: false,
      }),
    },
  });
}, 60_000);
afterAll(async () => {
  for (const other of others) await other.close();
  await h?.close();
  await website?.close();
});

// The cases run concurrently, as the worker runs organizations' cases: the ones signing in as the same portal
// account (the right and the wrong authenticator secret) overlap.
describe('production cases through the payer portal connection and stored credentials', () => {
  it.concurrent(
    'approved: signs in with the organization’s credentials, submits once and records the decision',
    async () => {
      const ready = await h.readyCase('SBX-APPROVED');
      await h.confirm(ready.id);

      const done = await h.waitForStatus(ready.id, 'completed', CASE_TIMEOUT_MS - 30_000);
      expect(done.outcome).toBe('approved');
      expect(done.toState().portalAuthMode).toBe('automated');
      expect(done.submission.payerReceipt).toMatchObject({
        referenceNumber: expect.stringMatching(/^PSX-[0-9A-F]{10}$/),
        channel: 'payer_portal',
      });
      expect(done.submission.decision?.authorizationNumber).toMatch(/^PSA-[0-9A-F]{10}$/);
    },
    CASE_TIMEOUT_MS,
  );

  it.concurrent(
    'a locked account: the case waits for a person at the portal (complete_payer_interaction)',
    async () => {
      const locked = await organization(SANDBOX_PAYER_LOCKED_ACCOUNT);
      others.push(locked);
      const ready = await locked.readyCase('SBX-APPROVED');
      await locked.confirm(ready.id);

      const waiting = await locked.waitForStatus(ready.id, 'requires_action', CASE_TIMEOUT_MS);
      expect(waiting.nextAction).toMatchObject({
        type: 'complete_payer_interaction',
        owner: 'operator',
        resolution: { kind: 'manual_handoff', reason: 'portal_account_locked' },
      });
    },
    CASE_TIMEOUT_MS,
  );

  it.concurrent(
    'a wrong password fails the case with portal_credentials_invalid before anything is submitted',
    async () => {
      const wrong = await organization({ ...SANDBOX_PAYER_DEMO_ACCOUNT, password: 'Wrong-Password-1!' });
      others.push(wrong);
      const ready = await wrong.readyCase('SBX-APPROVED');
      await wrong.confirm(ready.id);

      const done = await wrong.waitForStatus(ready.id, 'completed', CASE_TIMEOUT_MS);
      expect(done.outcome).toBe('failed');
      expect(done.failure).toMatchObject({ code: 'portal_credentials_invalid' });
    },
    CASE_TIMEOUT_MS,
  );

  it.concurrent(
    'a wrong authenticator secret is a credential_or_mfa_issue for a person to resolve',
    async () => {
      const mfa = await organization({
        ...SANDBOX_PAYER_DEMO_ACCOUNT,
        totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
      });
      others.push(mfa);
      const ready = await mfa.readyCase('SBX-APPROVED');
      await mfa.confirm(ready.id);

      const waiting = await mfa.waitForStatus(ready.id, 'requires_action', CASE_TIMEOUT_MS);
      expect(waiting.nextAction).toMatchObject({
        type: 'complete_payer_interaction',
        resolution: { kind: 'manual_handoff', reason: 'credential_or_mfa_issue' },
      });
    },
    CASE_TIMEOUT_MS,
  );

  it.concurrent(
    'credentials removed after the case was created: a clear failure, not a crash',
    async () => {
      const removed = await organization(SANDBOX_PAYER_DEMO_ACCOUNT);
      others.push(removed);
      const ready = await removed.readyCase('SBX-APPROVED');
      await new TypeOrmPortalCredentials(removed.dataSource, testCredentialsCipher).remove(
        removed.organizationId,
        PAYER,
      );
      await removed.confirm(ready.id);

      const done = await removed.waitForStatus(ready.id, 'completed', CASE_TIMEOUT_MS);
      expect(done.outcome).toBe('failed');
      expect(done.failure).toMatchObject({ code: 'portal_credentials_invalid' });
      expect(done.failure?.message).toMatch(/No credentials/);
    },
    CASE_TIMEOUT_MS,
  );
});
