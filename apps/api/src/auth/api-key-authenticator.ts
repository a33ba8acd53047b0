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

/** A key's `last_used_at` is written at most this often per process (decision 0035), off the request's path. */
export const API_KEY_LAST_USED_RESOLUTION_MS = 60_000;
const LAST_USED_FLUSH_MS = 1_000;

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
  /** When this process last noted each key's use; keys whose use is still to be written. */
  private readonly notedUse = new LRUCache<string, number>({ max: API_KEY_CACHE_ENTRIES });
  private readonly unwrittenUse = new Set<string>();
  private useTimer: NodeJS.Timeout | undefined;

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
    if (cached) {
      this.noteUse(cached.apiKeyId);
      return { key: cached, fromDatabase: false };
    }
    const record = await this.directory.findActiveApiKeyByHash(hash);
    if (!record || !hashesEqual(record.keyHash, hash) || record.environment !== parsed.environment)
      return null;
    const authenticated: AuthenticatedKey = {
      apiKeyId: record.id,
      scope: { organizationId: record.organizationId, environment: record.environment },
      apiVersion: record.apiVersion,
    };
    this.active.set(hash, authenticated);
    this.noteUse(authenticated.apiKeyId);
    return { key: authenticated, fromDatabase: true };
  }

  /** `key list` shows when a key was last used: written in the background, once a minute per key at most. */
  private noteUse(apiKeyId: string): void {
    const now = Date.now();
    const last = this.notedUse.get(apiKeyId);
    if (last !== undefined && now - last < API_KEY_LAST_USED_RESOLUTION_MS) return;
    this.notedUse.set(apiKeyId, now);
    this.unwrittenUse.add(apiKeyId);
    this.useTimer ??= setTimeout(() => {
      this.useTimer = undefined;
      const ids = [...this.unwrittenUse];
      this.unwrittenUse.clear();
      // A lost write only leaves the time a minute older; it never fails a request.
      this.directory.touchApiKeys(ids).catch(() => undefined);
    }, LAST_USED_FLUSH_MS).unref();
  }
}
