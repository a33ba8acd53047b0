import { type PortalCredentials } from './payer-site.page';

/**
 * The demo account of the simulated payer website, which sandbox `automated` runs sign in with. Not a secret:
 * the simulated payer is a test fixture and the README documents it.
 */
export const SANDBOX_PAYER_DEMO_ACCOUNT: Readonly<PortalCredentials> = Object.freeze({
  username: 'demo.provider',
  password: 'Sandbox-Portal-2026!',
  totpSecret: 'KRSXG5CTMVRXEZLUKN2XAZLSONQW4ZDC',
});

/** An account of the simulated payer that is locked: signing in shows the locked-account page. */
export const SANDBOX_PAYER_LOCKED_ACCOUNT: Readonly<PortalCredentials> = Object.freeze({
  username: 'locked.provider',
  password: 'Sandbox-Portal-2026!',
  totpSecret: 'KRSXG5CTMVRXEZLUKN2XAZLSONQW4ZDC',
});

/** The `channel` of sandbox receipts, as before the website existed (decision 0013). */
export const SANDBOX_RECEIPT_CHANNEL = 'sandbox_portal';

/** What a sandbox case's final review warns (decision 0013). */
export const SANDBOX_REVIEW_WARNING =
  'Sandbox: the simulated payer website answers this case; nothing is sent to a real payer.';
