/** A validation problem at a precise place in the request, as the spec's error envelope lists it. */
export interface ValidationIssue {
  errorType: string;
  location: string[];
  message: string;
}

/** An error that already knows its HTTP status and envelope code (transport-level refusals). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly options: {
      details?: Record<string, unknown>;
      issues?: ValidationIssue[];
      retryable?: boolean;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const validationFailed = (issues: ValidationIssue[]) =>
  new HttpError(422, 'request_validation_failed', 'The request is invalid; see issues for each field.', {
    issues,
  });
