import type { AccessGrantOpeningOutcome, Environment, GrantKind } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/** A row of `audit_log`: append-only (a trigger refuses UPDATE, DELETE and TRUNCATE). Ids and codes only. */
export interface AuditLogRow {
  id: string;
  organization_id: string;
  environment: Environment;
  occurred_at: Date;
  recorded_at: Date;
  actor: string;
  action: string;
  subject_type: string;
  subject_id: string;
  request_id: string | null;
  details: Record<string, unknown>;
}

/** A row of `access_grants`: an issued short-lived capability (its URL is never stored). */
export interface AccessGrantRow {
  organization_id: string;
  environment: Environment;
  id: string;
  kind: GrantKind;
  subject_id: string;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

/**
 * A row of `access_grant_openings`: every attempt to open a grant URL, audited. Only an `invalid` attempt
 * lacks the tenant and grant (its token names none that can be trusted).
 */
export interface AccessGrantOpeningRow {
  id: string;
  organization_id: string | null;
  environment: Environment | null;
  grant_id: string | null;
  opened_at: Date;
  outcome: AccessGrantOpeningOutcome;
  client_address: string | null;
  user_agent: string | null;
}

export const AuditLogEntity = new EntitySchema<AuditLogRow>({
  name: 'audit_log_entry',
  tableName: 'audit_log',
  columns: {
    id: { type: 'bigint', primary: true, generated: 'increment' },
    organization_id: { type: 'text' },
    environment: { type: 'text' },
    occurred_at: { type: 'timestamptz' },
    recorded_at: { type: 'timestamptz', insert: false },
    actor: { type: 'text' },
    action: { type: 'text' },
    subject_type: { type: 'text' },
    subject_id: { type: 'text' },
    request_id: { type: 'text', nullable: true },
    details: { type: 'jsonb' },
  },
});

export const AccessGrantEntity = new EntitySchema<AccessGrantRow>({
  name: 'access_grant',
  tableName: 'access_grants',
  columns: {
    organization_id: { type: 'text', primary: true },
    environment: { type: 'text', primary: true },
    id: { type: 'text', primary: true },
    kind: { type: 'text' },
    subject_id: { type: 'text' },
    expires_at: { type: 'timestamptz' },
    revoked_at: { type: 'timestamptz', nullable: true },
    created_at: { type: 'timestamptz' },
  },
});

export const AccessGrantOpeningEntity = new EntitySchema<AccessGrantOpeningRow>({
  name: 'access_grant_opening',
  tableName: 'access_grant_openings',
  columns: {
    id: { type: 'bigint', primary: true, generated: 'increment' },
    organization_id: { type: 'text', nullable: true },
    environment: { type: 'text', nullable: true },
    grant_id: { type: 'text', nullable: true },
    opened_at: { type: 'timestamptz' },
    outcome: { type: 'text' },
    client_address: { type: 'text', nullable: true },
    user_agent: { type: 'text', nullable: true },
  },
});

export const AUDIT_ENTITY_SCHEMAS = [AuditLogEntity, AccessGrantEntity, AccessGrantOpeningEntity];
