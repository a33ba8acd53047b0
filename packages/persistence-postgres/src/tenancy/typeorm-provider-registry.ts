import type { ProviderRegistry, TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { ProviderNpiEntity } from '../entities/tenancy.entity';

/**
 * The domain's ProviderRegistry: NPIs are registered per organization (decision 0024), so both environments
 * of an organization see the same NPIs.
 */
export class TypeOrmProviderRegistry implements ProviderRegistry {
  constructor(private readonly dataSource: DataSource) {}

  isRegistered(scope: TenantScope, npi: string): Promise<boolean> {
    return this.dataSource
      .getRepository(ProviderNpiEntity)
      .existsBy({ organization_id: scope.organizationId, npi });
  }
}
