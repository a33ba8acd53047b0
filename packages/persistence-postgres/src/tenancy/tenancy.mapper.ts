import type { ApiKeyRecord, Organization } from '@prior-auth/domain';
import type { ApiKeyRow, OrganizationRow } from '../entities';

export const toOrganization = (row: OrganizationRow): Organization => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
});

export const toApiKeyRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  environment: row.environment,
  displayPrefix: row.display_prefix,
  apiVersion: row.api_version ?? null,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  label: row.label ?? null,
  lastUsedAt: row.last_used_at ?? null,
  expiresAt: row.expires_at ?? null,
});
