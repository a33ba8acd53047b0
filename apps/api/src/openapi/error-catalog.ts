import type { BlobHttpErrorCode } from '@prior-auth/blob-storage';
import type { DomainErrorCode } from '@prior-auth/domain';
import {
  BLOB_HTTP_ERROR_STATUS,
  DOMAIN_ERROR_HTTP_STATUS,
  GRANT_HTTP_ERROR_STATUS,
  type GrantHttpErrorCode,
} from '../http/error-mapping';

/*
 * Every `error.code` the API can answer, with its HTTP status and what it means for a client. The statuses of
 * domain and blob codes come from the API's own mapping tables, so the document cannot disagree with them; the
 * records are total over their code unions, so a new code without a status or a description fails the type
 * check.
 */

/** Codes the HTTP layer itself raises (middleware, preconditions, idempotency, infrastructure). */
export const HTTP_LAYER_ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  request_validation_failed: 422,
  precondition_required: 428,
  rate_limited: 429,
  headers_too_large: 431,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<string, number>;

export type HttpLayerErrorCode = keyof typeof HTTP_LAYER_ERROR_STATUS;
export type ErrorCode = HttpLayerErrorCode | DomainErrorCode | BlobHttpErrorCode | GrantHttpErrorCode;

export const ERROR_HTTP_STATUS: Record<ErrorCode, number> = {
  ...HTTP_LAYER_ERROR_STATUS,
  ...DOMAIN_ERROR_HTTP_STATUS,
  ...BLOB_HTTP_ERROR_STATUS,
  ...GRANT_HTTP_ERROR_STATUS,
};

export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  bad_request:
    'The request is malformed: a body that is not JSON or not sent as `application/json`, or an If-Match ' +
    'that is not exactly one quoted decimal (weak tags, lists and `*` included).',
  unauthorized: 'The API key is missing, unknown, revoked or of another environment.',
  not_found: 'No route matches the path.',
  method_not_allowed: 'The path exists but does not serve this method.',
  payload_too_large:
    'The request body is over the size limit (`REQUEST_BODY_LIMIT_BYTES`, 1 MiB by default).',
  request_validation_failed:
    'Body, query or headers are invalid; `error.issues` names each invalid field (`location`, `errorType`).',
  precondition_required: 'The operation requires an If-Match header with the current version.',
  rate_limited:
    'Too many requests (`retryable: true`): the API key is over its budget (`RateLimit-*` headers; 100 ' +
    'requests per second, burst 200, by default), or this address made too many requests without a valid key; ' +
    'retry after `Retry-After` seconds.',
  request_timeout:
    'The request was not received in time (answered by the HTTP server before routing; the connection closes).',
  headers_too_large:
    'The request headers are over the HTTP server limit (answered before routing; the connection closes).',
  idempotency_key_reused: 'The Idempotency-Key was already used for a different request; use a new key.',
  idempotency_key_in_use:
    'Another request with this Idempotency-Key is running, or answered it while this one ran (`retryable: true`); ' +
    'retry after `Retry-After` to get that answer.',
  internal_error: 'An unexpected failure (`retryable: true`); nothing was half-written.',
  service_unavailable:
    'The database cannot be reached (`retryable: true`); nothing was committed; retry after `Retry-After`.',

  authorization_not_found: 'The authorization does not exist for this organization and environment.',
  authorization_not_mutable: 'The authorization cannot be edited in its current status.',
  authorization_not_confirmable:
    'The authorization is not awaiting confirmation (status ≠ requires_confirmation).',
  authorization_not_cancelable: 'The authorization is already completed or canceled.',
  next_action_required: '`nextActionId` is missing (or null) in the body.',
  next_action_mismatch:
    '`nextActionId` is not the current next action; `details.currentNextActionId` names the current one.',
  next_action_not_confirmable:
    'The action cannot be confirmed (provide_requirements is resolved by answering and attaching).',
  requirements_not_satisfied: 'Outstanding requirements prevent confirmation.',
  review_stale: 'The final review snapshot no longer covers the current authorization; review again.',
  version_conflict:
    'If-Match is stale; `details` carries `expectedVersion` and `actualVersion`. Re-read and retry if still needed.',
  file_not_found: 'The file does not exist for this organization and environment.',
  file_not_ready: 'The file has not completed its upload (status ≠ ready).',
  file_upload_incomplete: 'The uploaded bytes are missing or do not match the declared size.',
  file_content_mismatch:
    'The declared file is not accepted (purpose, content type, size, empty name; `payer_evidence` and ' +
    '`submission_preview` are the service’s own), the bytes do not match it, or it is not a file that can be attached.',
  file_already_completed: 'The file upload was already completed.',
  attachment_not_found: 'The attachment does not exist on this authorization.',
  action_not_found: 'The action item does not exist on this authorization (legacy actions, decision 0032).',
  action_not_open: 'The action item is already resolved.',
  provider_not_found: 'The provider NPI is not registered to the organization.',
  payer_not_found: 'The payer is not in the catalog.',
  unsupported_template_selection:
    'No serviceable route for the provider, payer, state, service type and service code. In production, `details.reason` is `portal_connection_missing` or `portal_credentials_missing` when the route exists but its payer portal cannot be used yet (decision 0021).',
  portal_auth_mode_unsupported: 'The route does not support the requested portalAuthMode.',
  final_submission_policy_required: '`policy` or `policy.finalSubmission` is missing on create.',
  manual_handoff_not_found: 'The manual handoff does not exist on this authorization.',
  manual_handoff_not_allowed: 'A manual handoff cannot be created now.',
  manual_handoff_invalid_state: 'The manual handoff is not in a state that allows this operation.',
  live_session_not_available:
    'The authorization has no live session to view (none is running, or it has ended).',
  invalid_transition: 'The authorization cannot make this status change.',
  template_invalid: 'A catalog questionnaire template is invalid (a server-side defect).',
  auth_provider_unavailable: 'The payer portal sign-in provider is unavailable (`retryable: true`).',
  webhook_endpoint_not_found: 'No webhook endpoint with that ID for this key’s organization and environment.',
  webhook_delivery_not_found: 'No delivery with that ID for this webhook endpoint.',
  webhook_endpoint_invalid: 'The webhook endpoint is not valid (for example `enabledEvents` names nothing).',
  webhook_url_not_allowed:
    'The webhook URL is refused: production endpoints must be `https` and must not resolve to loopback, ' +
    'private or link-local addresses; `details.host` names the host.',

  upload_url_invalid: 'The upload URL is not valid (tampered, or not an upload URL).',
  upload_url_expired: 'The upload URL has expired; create a new file.',
  upload_content_type_mismatch: 'The Content-Type is not the one declared for the file.',
  upload_too_large: 'The upload is larger than the size declared for the file.',
  upload_interrupted: 'The upload ended before all bytes arrived (`retryable: true`); upload again.',
  download_url_invalid: 'The download URL is not valid.',
  download_url_expired: 'The download URL has expired; read the file again for a fresh one.',
  download_not_found: 'Nothing is stored for this download URL.',

  access_grant_invalid: 'The grant URL is not valid (tampered, unknown, or not a grant URL).',
  access_grant_revoked: 'The grant was revoked (its handoff closed or was revoked); request a new one.',
  access_grant_expired: 'The grant has expired (they live 5 minutes); request a new one.',
  access_grant_subject_inactive:
    'The handoff is no longer active, or the live session has ended; nothing can be opened.',
};
