/** Every piece of tenant data belongs to one organization in one environment. */
export type Environment = 'sandbox' | 'production';

export interface TenantScope {
  organizationId: string;
  environment: Environment;
}
