import type { ProviderRegistry, TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { ProviderNpiEntity } from '../entities/tenancy.entity';
import { managerOf, type PostgresTransaction } from '../unit-of-work/postgres-transaction';

/**
 * The domain's ProviderRegistry: NPIs are registered per organization (decision 0024), so both environments
 * of an organization see the same NPIs.
 */
export class TypeOrmProviderRegistry implements ProviderRegistry {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx?: PostgresTransaction,
  ) {}

  /** The same reads on `tx`'s connection (a command's: no second connection while it holds one). */
  on(tx: PostgresTransaction): TypeOrmProviderRegistry {
    return new TypeOrmProviderRegistry(this.dataSource, tx);
  }

  isRegistered(scope: TenantScope, npi: string): Promise<boolean> {
    return managerOf(this.dataSource, this.tx)
      .getRepository(ProviderNpiEntity)
      .existsBy({ organization_id: scope.organizationId, npi });
  }
}
