import { PayerEntity, RouteEntity } from '../catalog/catalog.entity';
import { AUDIT_ENTITY_SCHEMAS } from '../audit/audit-log.entity';
import { AUTHORIZATION_ENTITY_SCHEMAS } from '../authorization/authorization.entity';
import { FileEntity } from '../file/file.entity';
import { IdempotencyRecordEntity } from '../idempotency/idempotency-record.entity';
import { ManualHandoffEntity } from '../manual-handoff/manual-handoff.entity';
import { ResourceEventEntity } from '../events/resource-event.entity';
import { WebhookEndpointEntity } from '../webhooks/webhook-endpoint.entity';
import { PayerEvidenceEntity } from '../payer-evidence/payer-evidence.entity';
import { PORTAL_ACCESS_ENTITY_SCHEMAS } from '../portal-access/portal-access.entity';
import { ApiKeyEntity, OrganizationEntity, ProviderNpiEntity } from './tenancy.entity';

export * from './tenancy.entity';
export * from '../audit/audit-log.entity';
export * from '../authorization/authorization.entity';
export * from '../file/file.entity';
export * from '../idempotency/idempotency-record.entity';
export * from '../manual-handoff/manual-handoff.entity';
export * from '../events/resource-event.entity';
export * from '../webhooks/webhook-endpoint.entity';
export * from '../payer-evidence/payer-evidence.entity';
export * from '../portal-access/portal-access.entity';

export const ENTITY_SCHEMAS = [
  OrganizationEntity,
  ProviderNpiEntity,
  ApiKeyEntity,
  PayerEntity,
  RouteEntity,
  ...AUTHORIZATION_ENTITY_SCHEMAS,
  FileEntity,
  ManualHandoffEntity,
  PayerEvidenceEntity,
  ...AUDIT_ENTITY_SCHEMAS,
  IdempotencyRecordEntity,
  ...PORTAL_ACCESS_ENTITY_SCHEMAS,
  ResourceEventEntity,
  WebhookEndpointEntity,
];
