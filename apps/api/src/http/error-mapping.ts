import type { BlobHttpErrorCode } from '@prior-auth/blob-storage';
import type { DomainErrorCode } from '@prior-auth/domain';

/**
 * The one table from domain error codes to HTTP statuses. Typed as a total record, so adding a code to the
 * domain catalog without deciding its status fails the type check.
 */
export const DOMAIN_ERROR_HTTP_STATUS: Record<DomainErrorCode, number> = {
  authorization_not_found: 404,
  file_not_found: 404,
  attachment_not_found: 404,
  action_not_found: 404,
  provider_not_found: 404,
  payer_not_found: 404,
  manual_handoff_not_found: 404,
  final_submission_policy_required: 400,
  authorization_not_mutable: 409,
  authorization_not_confirmable: 409,
  authorization_not_cancelable: 409,
  next_action_required: 409,
  next_action_mismatch: 409,
  next_action_not_confirmable: 409,
  requirements_not_satisfied: 409,
  action_not_open: 409,
  review_stale: 409,
  version_conflict: 409,
  file_not_ready: 409,
  file_upload_incomplete: 409,
  file_already_completed: 409,
  file_content_mismatch: 422,
  unsupported_template_selection: 409,
  portal_auth_mode_unsupported: 422,
  manual_handoff_not_allowed: 409,
  manual_handoff_invalid_state: 409,
  live_session_not_available: 409,
  invalid_transition: 409,
  template_invalid: 500,
  auth_provider_unavailable: 503,
  webhook_endpoint_not_found: 404,
  webhook_delivery_not_found: 404,
  webhook_endpoint_invalid: 422,
  webhook_url_not_allowed: 422,
};

/**
 * Transport-level refusals of the blob routes (`/blobs/upload/:token`, `/blobs/download/:token`), which the
 * filesystem adapter's BlobHttpHandler names. They are not domain codes: no use case ever raises them. Total
 * over the handler's codes, like the table above.
 */
export const BLOB_HTTP_ERROR_STATUS: Record<BlobHttpErrorCode, number> = {
  upload_url_invalid: 403,
  upload_url_expired: 403,
  upload_content_type_mismatch: 415,
  upload_too_large: 413,
  upload_interrupted: 400,
  download_url_invalid: 403,
  download_url_expired: 403,
  download_not_found: 404,
};

/** Worth sending again as is: only an upload cut off mid-way. */
export const RETRYABLE_BLOB_HTTP_ERRORS: ReadonlySet<BlobHttpErrorCode> = new Set(['upload_interrupted']);

/**
 * Refusals when an access-grant URL is opened (`/grants/:token`, decision 0014). Transport-level like the blob
 * codes: the grant gate names them, no use case raises them.
 */
export const GRANT_HTTP_ERROR_STATUS = {
  access_grant_invalid: 403,
  access_grant_revoked: 410,
  access_grant_expired: 410,
  access_grant_subject_inactive: 409,
} as const satisfies Record<string, number>;

export type GrantHttpErrorCode = keyof typeof GRANT_HTTP_ERROR_STATUS;
