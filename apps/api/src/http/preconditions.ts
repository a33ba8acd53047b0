import type { Request } from 'express';
import { HttpError, validationFailed } from './http-error';

const STRONG_ETAG = /^"(0|[1-9]\d{0,15})"$/;

/**
 * Decision 0023: If-Match is exactly one quoted decimal. Missing → 428, anything else (weak tags, lists, `*`,
 * unquoted) → 400.
 */
export function requiredIfMatch(req: Request): number {
  const header = req.header('if-match');
  if (header === undefined) {
    throw new HttpError(
      428,
      'precondition_required',
      'This operation requires an If-Match header with the current version, e.g. If-Match: "3".',
    );
  }
  const match = STRONG_ETAG.exec(header.trim());
  if (!match) {
    throw new HttpError(
      400,
      'bad_request',
      'If-Match must be the current version as a quoted decimal, e.g. "3".',
    );
  }
  return Number(match[1]);
}

/**
 * Decision 0023: the If-Match precondition comes after tenant scoping, so a missing or malformed header on a
 * resource the caller cannot see is still 404. `scopedRead` (which throws the not-found error) only runs on
 * that error path.
 */
export async function ifMatchAfterScoping(req: Request, scopedRead: () => Promise<unknown>): Promise<number> {
  try {
    return requiredIfMatch(req);
  } catch (error) {
    await scopedRead();
    throw error;
  }
}

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** Printable ASCII with no leading or trailing space. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

/** Decision 0023: 1–255 printable ASCII characters; required where the spec's listing says so. */
export function idempotencyKey(req: Request, required: boolean): string | null {
  const header = req.header('idempotency-key');
  if (header === undefined) {
    if (!required) return null;
    throw validationFailed([
      {
        errorType: 'missing',
        location: ['headers', 'Idempotency-Key'],
        message: 'Idempotency-Key is required on this operation',
      },
    ]);
  }
  if (
    header.length === 0 ||
    header.length > MAX_IDEMPOTENCY_KEY_LENGTH ||
    !IDEMPOTENCY_KEY_PATTERN.test(header)
  ) {
    throw validationFailed([
      {
        errorType: 'value_error',
        location: ['headers', 'Idempotency-Key'],
        message: `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`,
      },
    ]);
  }
  return header;
}
