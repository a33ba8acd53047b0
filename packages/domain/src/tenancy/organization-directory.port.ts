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
  createApiKey(input: {
    id: string;
    organizationId: string;
    environment: Environment;
    keyHash: string;
    displayPrefix: string;
    apiVersion?: string | null;
  }): Promise<ApiKeyRecord>;
  listApiKeys(organizationId: string): Promise<ApiKeyRecord[]>;
  revokeApiKey(id: string): Promise<boolean>;
  /** The active (not revoked) key with this hash, with the stored hash for a constant-time comparison. */
  findActiveApiKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { keyHash: string }) | null>;
}
