import { PayerEntity, RouteEntity } from '../catalog/catalog.entity';
import { ApiKeyEntity, OrganizationEntity, ProviderNpiEntity } from './tenancy.entity';

export * from './tenancy.entity';

export const ENTITY_SCHEMAS = [OrganizationEntity, ProviderNpiEntity, ApiKeyEntity, PayerEntity, RouteEntity];
