import { createHash } from 'node:crypto';
import type { TenantScope } from '@prior-auth/domain';
import type { TokenSigner } from '@prior-auth/platform';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

const CURSOR_PURPOSE = 'list-cursor:v1';
const MAX_CURSOR_LENGTH = 2_048;

/**
 * A cursor that was altered, or that belongs to another list (another tenant, resource or filter set).
 * The API answers it with 422 request_validation_failed at `["query", "cursor"]` (decision 0023).
 */
export class InvalidCursorError extends Error {
  readonly code = 'invalid_cursor';
  constructor(readonly reason: 'malformed' | 'other_query') {
    super(
      reason === 'malformed' ? 'The cursor is not valid.' : 'The cursor belongs to a different list query.',
    );
    this.name = 'InvalidCursorError';
  }
}

export const isInvalidCursorError = (error: unknown): error is InvalidCursorError =>
  error instanceof InvalidCursorError;

/** Position of the last row of a page in (created_at DESC, id DESC) order. */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

/** What a cursor is valid for: the list, the tenant and every filter value (null for an absent filter). */
export interface CursorBinding {
  resource: string;
  scope: TenantScope;
  filters: Record<string, string | null>;
}

interface CursorPayload {
  /** Digest of the binding; the tenant and filters themselves stay out of the readable payload. */
  b: string;
  /** created_at of the last row; absent for lists ordered by id alone. */
  t?: string;
  i: string;
}

const bindingDigest = (binding: CursorBinding): string => {
  const filters = Object.keys(binding.filters)
    .sort()
    .map((key) => [key, binding.filters[key] ?? null]);
  const canonical = JSON.stringify([
    binding.resource,
    binding.scope.organizationId,
    binding.scope.environment,
    filters,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
};

/** Opaque keyset cursors, HMAC-signed with the deployment's signing secret (`TokenSigner`). */
export class KeysetCursors {
  constructor(private readonly signer: TokenSigner) {}

  encode(binding: CursorBinding, position: KeysetPosition): string {
    const payload: CursorPayload = {
      b: bindingDigest(binding),
      t: position.createdAt.toISOString(),
      i: position.id,
    };
    return this.signer.sign(CURSOR_PURPOSE, payload);
  }

  /** The position after which the next page starts; throws InvalidCursorError. */
  decode(binding: CursorBinding, cursor: string): KeysetPosition {
    const { t, i } = this.verify(binding, cursor, true);
    const createdAt = new Date(t as string);
    if (Number.isNaN(createdAt.getTime())) throw new InvalidCursorError('malformed');
    return { createdAt, id: i };
  }

  /** For lists ordered by id alone (the payer and route catalog). */
  encodeAfterId(binding: CursorBinding, id: string): string {
    return this.signer.sign(CURSOR_PURPOSE, { b: bindingDigest(binding), i: id });
  }

  /** The id after which the next page starts; throws InvalidCursorError. */
  decodeAfterId(binding: CursorBinding, cursor: string): string {
    return this.verify(binding, cursor, false).i;
  }

  private verify(binding: CursorBinding, cursor: string, timed: boolean): { t?: string; i: string } {
    // Real cursors are ~120 characters; anything far longer is not worth hashing.
    const payload =
      cursor.length <= MAX_CURSOR_LENGTH
        ? this.signer.verify<Partial<CursorPayload>>(CURSOR_PURPOSE, cursor)
        : null;
    if (payload === null || typeof payload !== 'object') throw new InvalidCursorError('malformed');
    const { b, t, i } = payload;
    if (typeof b !== 'string' || typeof i !== 'string' || (timed && typeof t !== 'string')) {
      throw new InvalidCursorError('malformed');
    }
    if (b !== bindingDigest(binding)) throw new InvalidCursorError('other_query');
    return { t, i };
  }
}

/**
 * Newest first, strictly after `after`, one row more than the page to learn whether another page exists. The
 * row comparison matches the (…, created_at DESC, id DESC) indexes, so every page is an index range scan.
 */
export function applyKeysetPage<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  alias: string,
  after: KeysetPosition | null,
  limit: number,
): SelectQueryBuilder<T> {
  if (after !== null) {
    query.andWhere(`(${alias}.created_at, ${alias}.id) < (:afterCreatedAt, :afterId)`, {
      afterCreatedAt: after.createdAt,
      afterId: after.id,
    });
  }
  return query
    .orderBy(`${alias}.created_at`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .limit(limit + 1);
}

/** Splits the `limit + 1` rows of `applyKeysetPage` into the page and the cursor of the next one. */
export function keysetPage<R extends { created_at: Date; id: string }>(
  rows: R[],
  limit: number,
  nextCursor: (position: KeysetPosition) => string,
): { rows: R[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page,
    nextCursor: last === undefined ? null : nextCursor({ createdAt: last.created_at, id: last.id }),
  };
}

/** Limits are validated by the API (1–100); this guards the SQL against a caller that forgot. */
export function assertPageLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new RangeError(`page limit must be an integer from 1 to 100, got ${String(limit)}`);
  }
}
