import type { TenantScope } from '@prior-auth/domain';
import type { TokenSigner } from '@prior-auth/platform';
import { validationFailed } from './http-error';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/** Decision 6: `limit` is an integer 1–100 (default 25); anything else is a 422 at `query.limit`. */
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

interface CursorPayload<K> {
  o: string;
  e: string;
  f: string;
  k: K;
}

/**
 * Opaque cursors: the keyset position signed together with the caller's tenant and the list's filters, so a
 * cursor cannot be forged, nor replayed by another tenant or with other filters.
 */
export class CursorCodec {
  constructor(
    private readonly signer: TokenSigner,
    private readonly purpose: string,
  ) {}

  encode<K>(scope: TenantScope, filters: Record<string, unknown>, keyset: K): string {
    const payload: CursorPayload<K> = {
      o: scope.organizationId,
      e: scope.environment,
      f: JSON.stringify(filters),
      k: keyset,
    };
    return this.signer.sign(this.purpose, payload);
  }

  decode<K>(scope: TenantScope, filters: Record<string, unknown>, raw: unknown): K | undefined {
    if (raw === undefined) return undefined;
    const payload =
      typeof raw === 'string' && raw.length <= 2048
        ? this.signer.verify<CursorPayload<K>>(this.purpose, raw)
        : null;
    if (
      !payload ||
      payload.o !== scope.organizationId ||
      payload.e !== scope.environment ||
      payload.f !== JSON.stringify(filters)
    ) {
      throw validationFailed([
        {
          errorType: 'value_error',
          location: ['query', 'cursor'],
          message: 'cursor is not valid for this list; start again without it',
        },
      ]);
    }
    return payload.k;
  }
}
