import { type TenantScope } from '../shared/scope';

/** Provider NPIs registered per organization (decision 0024). */
export interface ProviderRegistry {
  isRegistered(scope: TenantScope, npi: string): Promise<boolean>;
}
