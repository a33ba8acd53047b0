import type { Environment } from '../shared/scope';

export interface Organization {
  id: string;
  name: string;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  displayPrefix: string;
  /**
   * The API version the key's requests use when they send no version header; null → the current one. Opaque
   * here: versions are a presentation concern of the API.
   */
  apiVersion: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  /** What the organization calls the key (`key create --label`), or null. */
  label: string | null;
  /** When a request last used the key (to the minute), or null if none has. */
  lastUsedAt: Date | null;
  /** When a rotated key stops working (`key rotate --overlap`), or null while it has no end. */
  expiresAt: Date | null;
}

/** A key to store: only the hash of its secret, and the prefix shown in listings. */
export interface NewApiKey {
  id: string;
  organizationId: string;
  environment: Environment;
  keyHash: string;
  displayPrefix: string;
  apiVersion?: string | null;
  label?: string | null;
}

/**
 * Organizations, their provider NPIs and API keys. Keys are handed in already hashed: no adapter ever sees
 * or stores a secret.
 */
export interface OrganizationDirectory {
  createOrganization(input: { id: string; name: string }): Promise<Organization>;
  findOrganization(id: string): Promise<Organization | null>;
  listOrganizations(): Promise<Organization[]>;
  /** Idempotent: registering an NPI twice keeps one registration. */
  registerProviderNpi(organizationId: string, npi: string): Promise<void>;
  removeProviderNpi(organizationId: string, npi: string): Promise<boolean>;
  listProviderNpis(organizationId: string): Promise<string[]>;
  createApiKey(input: NewApiKey): Promise<ApiKeyRecord>;
  listApiKeys(organizationId: string): Promise<ApiKeyRecord[]>;
  revokeApiKey(id: string): Promise<boolean>;
  /**
   * Replaces an active key: stores `replacement` (the old key's organization; its environment, which must be
   * the old key's) and makes the old key
   * expire at `oldKeyExpiresAt` (or keep an earlier end), in one transaction. Null when the old key is not
   * active (unknown, revoked or expired).
   */
  rotateApiKey(
    oldKeyId: string,
    replacement: NewApiKey,
    oldKeyExpiresAt: Date,
  ): Promise<{ replacement: ApiKeyRecord; oldKeyExpiresAt: Date } | null>;
  /** The environment of an active key, or null when there is none with this id. */
  findApiKeyEnvironment(id: string): Promise<Environment | null>;
  /** Notes that these keys were used now (at most once a minute per key is written). */
  touchApiKeys(ids: readonly string[]): Promise<void>;
  /** The active (not revoked, not expired) key with this hash, with the stored hash for a constant-time comparison. */
  findActiveApiKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { keyHash: string }) | null>;
}
