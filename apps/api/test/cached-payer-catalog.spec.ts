import type { PayerCatalog, ProviderRegistry, Route, TemplateSelection } from '@prior-auth/domain';
import { CachedPayerCatalog, CachedProviderRegistry } from '../src/catalog/cached-payer-catalog';

const selection = {
  payerId: 'payer_uhc',
  insuranceState: 'CA',
  serviceType: 'outpatient',
  serviceCode: 'E0601',
  serviceCodeSystem: 'hcpcs',
} as TemplateSelection;
const route = { id: 'route_1' } as Route;
const scope = { organizationId: 'org_1', environment: 'sandbox' } as const;

function countingCatalog(answer: () => Route | null) {
  const calls = { findRoute: 0 };
  const inner: PayerCatalog = {
    getPayer: () => Promise.resolve(null),
    findRoute: () => {
      calls.findRoute += 1;
      return Promise.resolve(answer());
    },
  };
  return { inner, calls };
}

describe('CachedPayerCatalog and CachedProviderRegistry (docs/performance.md)', () => {
  it('asks the catalog once per route within the time-to-live, and hands out the same route object', async () => {
    const { inner, calls } = countingCatalog(() => ({ ...route }));
    const catalog = new CachedPayerCatalog(inner, 60_000);
    const [first, concurrent] = await Promise.all([
      catalog.findRoute(selection, 'sandbox'),
      catalog.findRoute(selection, 'sandbox'),
    ]);
    const later = await catalog.findRoute(selection, 'sandbox');
    expect(calls.findRoute).toBe(1);
    expect(concurrent).toBe(first);
    expect(later).toBe(first);
    await catalog.findRoute(selection, 'production');
    expect(calls.findRoute).toBe(2);
  });

  it('shares its cache with a command: a miss is read through the command catalog, a hit is not', async () => {
    const pool = countingCatalog(() => ({ ...route }));
    const command = countingCatalog(() => ({ ...route }));
    const catalog = new CachedPayerCatalog(pool.inner, 60_000);
    const first = await catalog.through(command.inner).findRoute(selection, 'sandbox');
    expect(command.calls.findRoute).toBe(1);
    expect(pool.calls.findRoute).toBe(0);
    await expect(catalog.findRoute(selection, 'sandbox')).resolves.toBe(first);
    await expect(
      catalog.through(countingCatalog(() => null).inner).findRoute(selection, 'sandbox'),
    ).resolves.toBe(first);
    expect(pool.calls.findRoute).toBe(0);

    let asked = 0;
    const registry = new CachedProviderRegistry({ isRegistered: () => Promise.resolve(false) }, 60_000);
    const commandRegistry: ProviderRegistry = {
      isRegistered: () => {
        asked += 1;
        return Promise.resolve(true);
      },
    };
    await expect(registry.through(commandRegistry).isRegistered(scope, '1234567893')).resolves.toBe(true);
    await expect(registry.isRegistered(scope, '1234567893')).resolves.toBe(true);
    expect(asked).toBe(1);
  });

  it('asks again once the time-to-live has passed', async () => {
    const { inner, calls } = countingCatalog(() => ({ ...route }));
    const catalog = new CachedPayerCatalog(inner, 50);
    await catalog.findRoute(selection, 'sandbox');
    // Polls the observable state; each turn yields to the event loop so the cache's clock moves on.
    while (calls.findRoute < 2) {
      await new Promise((done) => setImmediate(done));
      await catalog.findRoute(selection, 'sandbox');
    }
    expect(calls.findRoute).toBe(2);
  });

  it('never remembers a route that is not there', async () => {
    let current: Route | null = null;
    const { inner } = countingCatalog(() => current);
    const catalog = new CachedPayerCatalog(inner, 60_000);
    await expect(catalog.findRoute(selection, 'sandbox')).resolves.toBeNull();
    current = route;
    await expect(catalog.findRoute(selection, 'sandbox')).resolves.toBe(route);
  });

  it('remembers registered NPIs only', async () => {
    const registered = new Set<string>();
    let calls = 0;
    const inner: ProviderRegistry = {
      isRegistered: (_scope, npi) => {
        calls += 1;
        return Promise.resolve(registered.has(npi));
      },
    };
    const registry = new CachedProviderRegistry(inner, 60_000);
    await expect(registry.isRegistered(scope, '1234567893')).resolves.toBe(false);
    registered.add('1234567893');
    await expect(registry.isRegistered(scope, '1234567893')).resolves.toBe(true);
    await expect(registry.isRegistered(scope, '1234567893')).resolves.toBe(true);
    expect(calls).toBe(2);
    await expect(registry.isRegistered({ ...scope, organizationId: 'org_2' }, '1234567893')).resolves.toBe(
      true,
    );
    expect(calls).toBe(3);
  });
});
