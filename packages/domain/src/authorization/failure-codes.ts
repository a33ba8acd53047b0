/**
 * Why a case completed with outcome `failed` (docs/decisions/0031-events-and-webhooks.md). The payer portal
 * adapters name their permanent errors with these codes; the worker adds `processing_retries_exhausted`.
 * `retryable` answers the integrator's question "may the same request succeed if I create it again later?":
 * true for outages and automation trouble on our side, false when the payer or the portal refused the case
 * or the organization's portal account.
 */
export const FAILURE_RETRYABLE: Readonly<Record<string, boolean>> = {
  payer_rejected_submission: false,
  payer_portal_unavailable: true,
  payer_portal_unreachable: true,
  payer_portal_timeout: true,
  processing_retries_exhausted: true,
  portal_credentials_invalid: false,
  portal_account_locked: false,
  portal_member_not_found: false,
  portal_upload_refused: false,
  portal_field_missing: false,
  portal_reference_missing: false,
  portal_request_not_found: false,
  portal_page_changed: true,
  portal_automation_failed: true,
  browser_unavailable: true,
  browser_crashed: true,
};

/** The failure codes the service documents; an adapter may add others (their `retryable` is false). */
export const FAILURE_CODES = Object.keys(FAILURE_RETRYABLE);

/** Unknown codes are not retryable: nothing says that trying again would change the answer. */
export const isRetryableFailureCode = (code: string): boolean => FAILURE_RETRYABLE[code] ?? false;
