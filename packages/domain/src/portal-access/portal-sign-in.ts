/**
 * Sign-in failures at a payer portal (decision 0021) are permanent: retrying with the same stored credentials
 * cannot help and may lock the account. Those a person can get past at the portal (unlock the account, use
 * the authenticator, sign in with the customer's own account) leave the case waiting in
 * `complete_payer_interaction` for a manual handoff.
 */
const HANDED_TO_A_HUMAN: ReadonlySet<string> = new Set([
  'portal_account_locked',
  'credential_or_mfa_issue',
  'customer_login_required',
]);

/**
 * Whether a permanent portal error becomes a manual interaction instead of a failure. Wrong or missing
 * credentials fail the case while nothing can have reached the payer; once the final boundary is crossed an
 * earlier attempt may have submitted, and failing could abandon that submission (decision 0007), so a human
 * looks instead.
 */
export function signInNeedsHuman(code: string, finalBoundaryCrossed: boolean): boolean {
  if (HANDED_TO_A_HUMAN.has(code)) return true;
  return code === 'portal_credentials_invalid' && finalBoundaryCrossed;
}
