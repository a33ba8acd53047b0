import { EntitySchema } from 'typeorm';

export interface OrganizationRow {
  id: string;
  name: string;
  created_at: Date;
}

export interface ProviderNpiRow {
  organization_id: string;
  npi: string;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  organization_id: string;
  environment: 'sandbox' | 'production';
  key_hash: string;
  display_prefix: string;
  api_version: string | null;
  created_at: Date;
  revoked_at: Date | null;
  label: string | null;
  last_used_at: Date | null;
  expires_at: Date | null;
  replaced_by: string | null;
}

export const OrganizationEntity = new EntitySchema<OrganizationRow>({
  name: 'organization',
  tableName: 'organizations',
  columns: {
    id: { type: 'text', primary: true },
    name: { type: 'text' },
    created_at: { type: 'timestamptz', createDate: true },
  },
});

export const ProviderNpiEntity = new EntitySchema<ProviderNpiRow>({
  name: 'provider_npi',
  tableName: 'provider_npis',
  columns: {
    organization_id: { type: 'text', primary: true },
    npi: { type: 'char', length: 10, primary: true },
    created_at: { type: 'timestamptz', createDate: true },
  },
});

export const ApiKeyEntity = new EntitySchema<ApiKeyRow>({
  name: 'api_key',
  tableName: 'api_keys',
  columns: {
    id: { type: 'text', primary: true },
    organization_id: { type: 'text' },
    environment: { type: 'text' },
    key_hash: { type: 'char', length: 64 },
    display_prefix: { type: 'text' },
    api_version: { type: 'text', nullable: true },
    created_at: { type: 'timestamptz', createDate: true },
    revoked_at: { type: 'timestamptz', nullable: true },
    label: { type: 'text', nullable: true },
    last_used_at: { type: 'timestamptz', nullable: true },
    expires_at: { type: 'timestamptz', nullable: true },
    replaced_by: { type: 'text', nullable: true },
  },
});
