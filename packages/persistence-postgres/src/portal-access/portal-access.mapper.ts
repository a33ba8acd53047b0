import type { PortalAccessFacts } from '@prior-auth/domain';
import type { PortalConnectionRow, PortalCredentialRow } from './portal-access.entity';

/** A payer's portal: where it answers and which page script drives it (decision 0021). */
export interface PortalConnection {
  payerId: string;
  baseUrl: string;
  pageScript: string;
  updatedAt: Date;
}

/** What may be shown of stored credentials: never a secret. */
export interface PortalCredentialSummary {
  organizationId: string;
  payerId: string;
  username: string;
  totpConfigured: boolean;
  /** The key the secrets are sealed with (a fingerprint, not the key): what a rotation looks for. */
  keyId: string;
  updatedAt: Date;
}

/** Opened credentials, for the portal sign-in only. */
export interface PortalSignIn {
  username: string;
  password: string;
  totpSecret: string | null;
}

export const toPortalConnection = (row: PortalConnectionRow): PortalConnection => ({
  payerId: row.payer_id,
  baseUrl: row.base_url,
  pageScript: row.page_script,
  updatedAt: row.updated_at,
});

export const toPortalCredentialSummary = (row: PortalCredentialRow): PortalCredentialSummary => ({
  organizationId: row.organization_id,
  payerId: row.payer_id,
  username: row.username,
  totpConfigured: row.totp_secret_sealed !== null,
  keyId: row.key_id,
  updatedAt: row.updated_at,
});

export const toPortalAccessFacts = (row: {
  connection: boolean;
  credentials: boolean;
}): PortalAccessFacts => ({ connection: row.connection, credentials: row.credentials });
