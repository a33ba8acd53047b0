import { IsOptional, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Doc } from '../openapi/request-schema';
import { validationFailed } from './http-error';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
/** Far above any cursor the API signs; a longer one can only be tampered with. */
export const MAX_CURSOR_LENGTH = 2048;

/** Decision 0023: `limit` is an integer 1–100 (default 25); anything else is a 422 at `query.limit`. */
export function parseLimit(raw: unknown): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const text = typeof raw === 'string' ? raw : '';
  if (!/^\d{1,3}$/.test(text) || Number(text) < 1 || Number(text) > MAX_LIMIT) {
    throw validationFailed([
      {
        errorType: 'out_of_range',
        location: ['query', 'limit'],
        message: `limit must be an integer from 1 to ${MAX_LIMIT}`,
      },
    ]);
  }
  return Number(text);
}

/**
 * The page parameters of every list: its query class extends this one, which the document's `Limit` and
 * `Cursor` parameters are generated from. `limit` stays text here; `parseLimit` answers its own 422.
 */
export class PageQuery {
  @JSONSchema({
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    default: DEFAULT_LIMIT,
    description: `Page size, 1 to ${MAX_LIMIT}.`,
  })
  @IsOptional()
  @IsString()
  limit?: string;

  @Doc(
    '`pagination.nextCursor` of the previous page; opaque and bound to the organization, environment and filters.',
  )
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CURSOR_LENGTH)
  cursor?: string;
}
