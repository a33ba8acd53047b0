/**
 * Every error the domain decides carries a stable `code` from this catalog. Adapters and the API map codes
 * to transport concerns (HTTP statuses live in one table in the API); the domain never knows about them.
 */
export const DOMAIN_ERROR_CODES = [
  'authorization_not_found',
  'authorization_not_mutable',
  'authorization_not_confirmable',
  'authorization_not_cancelable',
  'next_action_required',
  'next_action_mismatch',
  'next_action_not_confirmable',
  'requirements_not_satisfied',
  'review_stale',
  'version_conflict',
  'file_not_found',
  'file_not_ready',
  'file_upload_incomplete',
  'file_content_mismatch',
  'file_already_completed',
  'attachment_not_found',
  'action_not_found',
  'action_not_open',
  'provider_not_found',
  'payer_not_found',
  'unsupported_template_selection',
  'portal_auth_mode_unsupported',
  'final_submission_policy_required',
  'manual_handoff_not_found',
  'manual_handoff_not_allowed',
  'manual_handoff_invalid_state',
  'live_session_not_available',
  'invalid_transition',
  'template_invalid',
  'auth_provider_unavailable',
  'webhook_endpoint_not_found',
  'webhook_delivery_not_found',
  'webhook_endpoint_invalid',
  'webhook_url_not_allowed',
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly details: Record<string, unknown>;
  /** True when retrying the same request later may succeed (for example a transient portal outage). */
  readonly retryable: boolean;

  constructor(
    code: DomainErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options: { retryable?: boolean } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
    this.retryable = options.retryable ?? false;
  }
}

/** A stale optimistic-concurrency precondition: the caller loaded (or sent) one version, another is stored. */
export class VersionConflictError extends DomainError {
  constructor(
    readonly expectedVersion: number,
    readonly actualVersion: number,
  ) {
    super('version_conflict', 'The resource was changed by another request; re-read it and retry.', {
      expectedVersion,
      actualVersion,
    });
    this.name = 'VersionConflictError';
  }
}

export const isDomainError = (error: unknown): error is DomainError => error instanceof DomainError;
