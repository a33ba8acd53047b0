import type {
  Environment,
  Payer,
  PayerCatalog,
  ProviderRegistry,
  Route,
  TemplateSelection,
  TenantScope,
} from '@prior-auth/domain';
import { expiringCache } from '../http/expiring-cache';

/**
 * How long a catalog entry or a provider registration found is used without asking the database again: the
 * bound within which a catalog change or an NPI's removal reaches every API process (docs/performance.md).
 */
export const CATALOG_CACHE_TTL_MS = 5_000;

/**
 * The payer catalog as the use cases read it, remembered for `ttlMs`. Besides saving a create two round
 * trips, the same route object is handed out again, so its questionnaire template is compiled once (the
 * compiler memoises per template object). The domain copies what it keeps, so the shared objects stay intact.
 */
export class CachedPayerCatalog implements PayerCatalog {
  private readonly payers;
  private readonly routes;

  constructor(
    private readonly inner: PayerCatalog,
    ttlMs = CATALOG_CACHE_TTL_MS,
  ) {
    this.payers = expiringCache<Payer | null>({ ttlMs, max: 1_000, keep: (payer) => payer !== null });
    this.routes = expiringCache<Route | null>({ ttlMs, max: 10_000, keep: (route) => route !== null });
  }

  getPayer(payerId: string): Promise<Payer | null> {
    return this.getPayerThrough(this.inner, payerId);
  }

  findRoute(selection: TemplateSelection, environment: Environment): Promise<Route | null> {
    return this.findRouteThrough(this.inner, selection, environment);
  }

  /** The same cache, filled on a miss through `inner` (a command's catalog, on its connection). */
  through(inner: PayerCatalog): PayerCatalog {
    return {
      getPayer: (payerId) => this.getPayerThrough(inner, payerId),
      findRoute: (selection, environment) => this.findRouteThrough(inner, selection, environment),
    };
  }

  private getPayerThrough(inner: PayerCatalog, payerId: string): Promise<Payer | null> {
    return this.payers(payerId, () => inner.getPayer(payerId));
  }

  private findRouteThrough(
    inner: PayerCatalog,
    selection: TemplateSelection,
    environment: Environment,
  ): Promise<Route | null> {
    const key = JSON.stringify([
      environment,
      selection.payerId,
      selection.insuranceState,
      selection.serviceType,
      selection.serviceCodeSystem,
      selection.serviceCode,
    ]);
    return this.routes(key, () => inner.findRoute(selection, environment));
  }
}

/** Provider registrations found, remembered for `ttlMs` (an unregistered NPI is asked again every time). */
export class CachedProviderRegistry implements ProviderRegistry {
  private readonly registered;

  constructor(
    private readonly inner: ProviderRegistry,
    ttlMs = CATALOG_CACHE_TTL_MS,
  ) {
    this.registered = expiringCache<boolean>({ ttlMs, max: 10_000, keep: (found) => found });
  }

  isRegistered(scope: TenantScope, npi: string): Promise<boolean> {
    return this.isRegisteredThrough(this.inner, scope, npi);
  }

  /** The same cache, filled on a miss through `inner` (a command's registry, on its connection). */
  through(inner: ProviderRegistry): ProviderRegistry {
    return { isRegistered: (scope, npi) => this.isRegisteredThrough(inner, scope, npi) };
  }

  private isRegisteredThrough(inner: ProviderRegistry, scope: TenantScope, npi: string): Promise<boolean> {
    const key = JSON.stringify([scope.organizationId, scope.environment, npi]);
    return this.registered(key, () => inner.isRegistered(scope, npi));
  }
}
