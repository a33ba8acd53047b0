import { EntitySchema } from 'typeorm';

export interface PortalConnectionRow {
  payer_id: string;
  base_url: string;
  page_script: string;
  created_at: Date;
  updated_at: Date;
}

export interface PortalCredentialRow {
  organization_id: string;
  payer_id: string;
  username: string;
  password_sealed: string;
  totp_secret_sealed: string | null;
  key_id: string;
  created_at: Date;
  updated_at: Date;
}

export const PortalConnectionEntity = new EntitySchema<PortalConnectionRow>({
  name: 'payer_portal_connection',
  tableName: 'payer_portal_connections',
  columns: {
    payer_id: { type: 'text', primary: true },
    base_url: { type: 'text' },
    page_script: { type: 'text' },
    created_at: { type: 'timestamptz', createDate: true },
    updated_at: { type: 'timestamptz', updateDate: true },
  },
});

export const PortalCredentialEntity = new EntitySchema<PortalCredentialRow>({
  name: 'portal_credential',
  tableName: 'portal_credentials',
  columns: {
    organization_id: { type: 'text', primary: true },
    payer_id: { type: 'text', primary: true },
    username: { type: 'text' },
    password_sealed: { type: 'text' },
    totp_secret_sealed: { type: 'text', nullable: true },
    key_id: { type: 'text' },
    created_at: { type: 'timestamptz', createDate: true },
    updated_at: { type: 'timestamptz', updateDate: true },
  },
});

export const PORTAL_ACCESS_ENTITY_SCHEMAS = [PortalConnectionEntity, PortalCredentialEntity];
