import { type Payer, type TemplateSelection } from '../authorization/authorization.types';
import { type PayerCatalog, type Route } from '../ports/payer-catalog.port';
import { type ProviderRegistry } from '../ports/provider-registry.port';
import { type Environment, type TenantScope } from '../shared/scope';

export class FakeProviderRegistry implements ProviderRegistry {
  private readonly registered = new Set<string>();

  register(scope: TenantScope, npi: string): void {
    this.registered.add(`${scope.organizationId}|${scope.environment}|${npi}`);
  }

  async isRegistered(scope: TenantScope, npi: string): Promise<boolean> {
    return this.registered.has(`${scope.organizationId}|${scope.environment}|${npi}`);
  }
}

const sameSelection = (a: TemplateSelection, b: TemplateSelection): boolean =>
  a.payerId === b.payerId &&
  a.insuranceState === b.insuranceState &&
  a.serviceType === b.serviceType &&
  a.serviceCode === b.serviceCode &&
  a.serviceCodeSystem === b.serviceCodeSystem;

export class FakePayerCatalog implements PayerCatalog {
  readonly payers = new Map<string, Payer>();
  readonly routes: Route[] = [];

  async getPayer(payerId: string): Promise<Payer | null> {
    return this.payers.get(payerId) ?? null;
  }

  async findRoute(selection: TemplateSelection, _environment: Environment): Promise<Route | null> {
    return this.routes.find((route) => sameSelection(route.templateSelection, selection)) ?? null;
  }
}
