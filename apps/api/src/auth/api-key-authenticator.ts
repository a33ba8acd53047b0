import type { Environment, OrganizationDirectory } from '@prior-auth/domain';
import { hashApiKey, hashesEqual, parseApiKey } from '@prior-auth/platform';
import { inject, injectable } from 'inversify';
import { LRUCache } from 'lru-cache';
import type { AuthenticatedKey } from '../http/request-context';
import { TOKENS } from '../tokens';

const BEARER = /^Bearer ([^\s]+)$/;

/**
 * How long an API key found active is trusted without asking the database again: the bound within which a
 * revocation takes effect in every API process (docs/performance.md). Unknown keys are never cached, so a new
 * key works at once.
 */
export const API_KEY_CACHE_TTL_MS = 5_000;
const API_KEY_CACHE_ENTRIES = 10_000;

export interface ApiKeyCacheOptions {
  ttlMs: number;
}

/**
 * Resolves `Authorization: Bearer <key>` to a tenant scope. Keys are looked up by their SHA-256 hash and the
 * stored hash is compared in constant time; a key of an environment this deployment does not serve is
 * refused like an unknown one. A key found active is remembered for `ttlMs`: the lookup was one database round
 * trip on every request (docs/performance.md).
 */
@injectable()
export class ApiKeyAuthenticator {
  private readonly active: LRUCache<string, AuthenticatedKey>;

  constructor(
    @inject(TOKENS.OrganizationDirectory) private readonly directory: OrganizationDirectory,
    @inject(TOKENS.ServedEnvironments) private readonly servedEnvironments: readonly Environment[],
    @inject(TOKENS.ApiKeyCache) cache: ApiKeyCacheOptions,
  ) {
    this.active = new LRUCache({ max: API_KEY_CACHE_ENTRIES, ttl: Math.max(1, cache.ttlMs) });
  }

  async authenticate(header: string | undefined): Promise<AuthenticatedKey | null> {
    return (await this.resolve(header))?.key ?? null;
  }

  /** As `authenticate`, telling whether the database was asked (it answered) or the cache was enough. */
  async resolve(
    header: string | undefined,
  ): Promise<{ key: AuthenticatedKey; fromDatabase: boolean } | null> {
    const match = header ? BEARER.exec(header.trim()) : null;
    const secret = match?.[1];
    if (!secret) return null;
    const parsed = parseApiKey(secret);
    if (!parsed || !this.servedEnvironments.includes(parsed.environment)) return null;
    const hash = hashApiKey(secret);
    const cached = this.active.get(hash);
    if (cached) return { key: cached, fromDatabase: false };
    const record = await this.directory.findActiveApiKeyByHash(hash);
    if (!record || !hashesEqual(record.keyHash, hash) || record.environment !== parsed.environment)
      return null;
    const authenticated: AuthenticatedKey = {
      apiKeyId: record.id,
      scope: { organizationId: record.organizationId, environment: record.environment },
      apiVersion: record.apiVersion,
    };
    this.active.set(hash, authenticated);
    return { key: authenticated, fromDatabase: true };
  }
}
