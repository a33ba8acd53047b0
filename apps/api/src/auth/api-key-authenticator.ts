import type { Environment, OrganizationDirectory } from '@prior-auth/domain';
import { hashApiKey, hashesEqual, parseApiKey } from '@prior-auth/platform';
import { inject, injectable } from 'inversify';
import type { AuthenticatedKey } from '../http/request-context';
import { TOKENS } from '../tokens';

const BEARER = /^Bearer ([^\s]+)$/;

/**
 * Resolves `Authorization: Bearer <key>` to a tenant scope. Keys are looked up by their SHA-256 hash and the
 * stored hash is compared in constant time; a key of an environment this deployment does not serve is
 * refused like an unknown one.
 */
@injectable()
export class ApiKeyAuthenticator {
  constructor(
    @inject(TOKENS.OrganizationDirectory) private readonly directory: OrganizationDirectory,
    @inject(TOKENS.ServedEnvironments) private readonly servedEnvironments: readonly Environment[],
  ) {}

  async authenticate(header: string | undefined): Promise<AuthenticatedKey | null> {
    const match = header ? BEARER.exec(header.trim()) : null;
    const secret = match?.[1];
    if (!secret) return null;
    const parsed = parseApiKey(secret);
    if (!parsed || !this.servedEnvironments.includes(parsed.environment)) return null;
    const hash = hashApiKey(secret);
    const record = await this.directory.findActiveApiKeyByHash(hash);
    if (!record || !hashesEqual(record.keyHash, hash) || record.environment !== parsed.environment)
      return null;
    return {
      apiKeyId: record.id,
      scope: { organizationId: record.organizationId, environment: record.environment },
    };
  }
}
