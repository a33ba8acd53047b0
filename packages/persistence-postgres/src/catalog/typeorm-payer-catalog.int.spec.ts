import type { DataSource } from 'typeorm';
import { buildCatalog } from './catalog';
import type {
  CatalogKeyset,
  CatalogPage,
  CatalogTemplateSelection,
  ListPayersQuery,
  ListRoutesQuery,
} from './catalog.types';
import { seedCatalog } from './seed-catalog';
import { openCatalogDataSource } from './testing/catalog-test-database';
import { TypeOrmPayerCatalog } from './typeorm-payer-catalog';

const catalog = buildCatalog();
const idsOf = (items: Array<{ id: string }>) => items.map((item) => item.id);

let dataSource: DataSource;
let payers: TypeOrmPayerCatalog;

beforeAll(async () => {
  dataSource = await openCatalogDataSource();
  await seedCatalog(dataSource);
  payers = new TypeOrmPayerCatalog(dataSource);
});

afterAll(async () => {
  await dataSource?.destroy();
});

/** Every id the listing yields, page by page; fails on a page over the limit or a repeated id. */
async function drain<T extends { id: string }>(
  list: (after: CatalogKeyset | undefined) => Promise<CatalogPage<T>>,
  limit: number,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let after: CatalogKeyset | undefined;
  let pages = 0;
  for (;;) {
    const page = await list(after);
    pages += 1;
    expect(page.items.length).toBeLessThanOrEqual(limit);
    ids.push(...idsOf(page.items));
    if (!page.nextAfter) break;
    expect(page.items.length).toBe(limit);
    expect(page.nextAfter).toEqual({ id: page.items[page.items.length - 1]!.id });
    after = page.nextAfter;
  }
  return { ids, pages };
}

/** The ids in the database's own order (its collation), which keyset pagination follows. */
async function dbOrder(
  table: 'payers' | 'routes',
  where = 'true',
  params: unknown[] = [],
): Promise<string[]> {
  const rows: Array<{ id: string }> = await dataSource.query(
    `SELECT id FROM ${table} WHERE ${where} ORDER BY id`,
    params,
  );
  return rows.map((row) => row.id);
}

const listPayerIds = async (query: Omit<ListPayersQuery, 'limit'>) =>
  idsOf((await payers.listPayers({ limit: 100, ...query })).items).sort();
const expectedPayerIds = (keep: (payer: (typeof catalog.payers)[number]) => boolean) =>
  catalog.payers
    .filter(keep)
    .map((payer) => payer.id)
    .sort();

describe('TypeOrmPayerCatalog.getPayer', () => {
  it('returns the catalog payer, or null for an unknown id', async () => {
    expect(await payers.getPayer('payer_kaiser')).toEqual(
      catalog.payers.find((payer) => payer.id === 'payer_kaiser'),
    );
    expect(await payers.getPayer('payer_nope')).toBeNull();
  });
});

describe('TypeOrmPayerCatalog.listPayers', () => {
  it('finds payers by name or alias, case- and spacing-insensitively', async () => {
    expect(await listPayerIds({ q: 'uhc' })).toEqual(['payer_uhc']);
    expect(await listPayerIds({ q: 'UHC' })).toEqual(['payer_uhc']);
    expect(await listPayerIds({ q: 'United Health Care' })).toEqual(['payer_uhc']);
    expect(await listPayerIds({ q: 'unitedhealthcare' })).toEqual(['payer_uhc']);
    expect(await listPayerIds({ q: 'kaiser permanente' })).toEqual(['payer_kaiser']);
    expect(await listPayerIds({ q: 'elevance' })).toEqual(['payer_anthem', 'payer_anthem_ca']);
    expect(await listPayerIds({ q: 'centene' })).toEqual(['payer_ambetter']);
    expect(await listPayerIds({ q: 'blue' })).toEqual(['payer_anthem', 'payer_anthem_ca', 'payer_bsca']);
  });

  it('treats LIKE wildcards in q literally', async () => {
    expect(await listPayerIds({ q: '%' })).toEqual([]);
    expect(await listPayerIds({ q: 'a_tna' })).toEqual([]);
    expect(await listPayerIds({ q: '  ' })).toEqual(expectedPayerIds(() => true));
  });

  it('filters by supported state and service type', async () => {
    expect(await listPayerIds({ state: 'HI' })).toEqual(
      expectedPayerIds((payer) => payer.supportedStates.includes('HI')),
    );
    expect(await listPayerIds({ state: 'hi' })).toEqual(await listPayerIds({ state: 'HI' }));
    expect(await listPayerIds({ state: 'HI' })).toContain('payer_kaiser');
    expect(await listPayerIds({ state: 'TX' })).not.toContain('payer_kaiser');
    expect(await listPayerIds({ state: 'CA' })).toEqual(
      expect.arrayContaining(['payer_bsca', 'payer_anthem_ca', 'payer_kaiser']),
    );
    expect(await listPayerIds({ state: 'ZZ' })).toEqual([]);
    expect(await listPayerIds({ serviceType: 'drug' })).toEqual(
      expectedPayerIds((payer) => payer.supportedServiceTypes.includes('drug')),
    );
    expect(await listPayerIds({ serviceType: 'drug' })).not.toContain('payer_molina');
    expect(await listPayerIds({ q: 'anthem', state: 'CA', serviceType: 'inpatient' })).toEqual([
      'payer_anthem_ca',
    ]);
  });

  it('pages through every payer exactly once, in id order', async () => {
    for (const limit of [1, 3, catalog.payers.length, 100]) {
      const { ids, pages } = await drain((after) => payers.listPayers({ limit, after }), limit);
      expect(ids).toEqual(await dbOrder('payers'));
      expect(pages).toBe(Math.max(1, Math.ceil(catalog.payers.length / limit)));
    }
    const filtered = await drain((after) => payers.listPayers({ state: 'CA', limit: 2, after }), 2);
    expect(filtered.ids).toEqual(await dbOrder('payers', `supported_states @> ARRAY['CA']`));
  });

  it('rejects a limit that is not a positive integer', async () => {
    await expect(payers.listPayers({ limit: 0 })).rejects.toThrow(RangeError);
    await expect(payers.listPayers({ limit: 2.5 })).rejects.toThrow(RangeError);
  });
});

describe('TypeOrmPayerCatalog.findRoute', () => {
  const selection: CatalogTemplateSelection = {
    payerId: 'payer_uhc',
    insuranceState: 'CA',
    serviceType: 'outpatient',
    serviceCodeSystem: 'hcpcs',
    serviceCode: 'E0601',
  };

  it('finds the route of an exact selection, with its questionnaire and documents', async () => {
    const route = await payers.findRoute(selection, 'production');
    expect(route).toEqual(catalog.routes.find((candidate) => candidate.id === 'route_uhc_ca_hcpcs_e0601'));
    expect(route!.questionnaire.groups[0]!.items.map((item) => item.linkId)).toEqual([
      'patient.memberId',
      'patient.firstName',
      'patient.lastName',
      'patient.birthDate',
    ]);
    expect(await payers.findRoute(selection, 'sandbox')).toEqual(route);
  });

  it('normalizes the state and the service code', async () => {
    expect(
      (await payers.findRoute({ ...selection, insuranceState: 'ca', serviceCode: ' e0601' }, 'sandbox'))?.id,
    ).toBe('route_uhc_ca_hcpcs_e0601');
    const drug = {
      payerId: 'payer_aetna',
      insuranceState: 'NY',
      serviceType: 'drug',
      serviceCodeSystem: 'ndc',
    } as const;
    for (const serviceCode of ['00074055402', '00074-0554-02', '0074-0554-02']) {
      expect((await payers.findRoute({ ...drug, serviceCode }, 'sandbox'))?.id).toBe(
        'route_aetna_ny_ndc_00074055402',
      );
    }
  });

  it('misses when any part of the selection has no route', async () => {
    const misses: CatalogTemplateSelection[] = [
      { ...selection, payerId: 'payer_kaiser', insuranceState: 'TX' },
      { ...selection, payerId: 'payer_nope' },
      { ...selection, serviceType: 'inpatient' },
      { ...selection, serviceCodeSystem: 'cpt' },
      { ...selection, serviceCode: 'E0602' },
      {
        payerId: 'payer_molina',
        insuranceState: 'CA',
        serviceType: 'drug',
        serviceCodeSystem: 'ndc',
        serviceCode: '00074055402',
      },
    ];
    for (const miss of misses) expect(await payers.findRoute(miss, 'production')).toBeNull();
  });

  it('looks the route up through the unique key index', async () => {
    const plan: Array<{ 'QUERY PLAN': unknown }> = await dataSource.query(
      `EXPLAIN (FORMAT JSON) SELECT * FROM routes
        WHERE payer_id = $1 AND insurance_state = $2 AND service_type = $3 AND service_code_system = $4 AND service_code = $5`,
      ['payer_uhc', 'CA', 'outpatient', 'hcpcs', 'E0601'],
    );
    expect(JSON.stringify(plan[0]!['QUERY PLAN'])).toMatch(/"Index Name":"routes_/);
  });

  it('gets a route by id', async () => {
    expect((await payers.getRoute('route_kaiser_hi_cpt_27447'))?.templateSelection).toEqual({
      payerId: 'payer_kaiser',
      insuranceState: 'HI',
      serviceType: 'inpatient',
      serviceCodeSystem: 'cpt',
      serviceCode: '27447',
    });
    expect(await payers.getRoute('route_nope')).toBeNull();
  });
});

describe('TypeOrmPayerCatalog.listRoutes', () => {
  const listRouteIds = async (query: Omit<ListRoutesQuery, 'limit'>) =>
    (await drain((after) => payers.listRoutes({ ...query, limit: 100, after }), 100)).ids.sort();
  const expectedRouteIds = (keep: (selection: CatalogTemplateSelection) => boolean) =>
    catalog.routes
      .filter((route) => keep(route.templateSelection))
      .map((route) => route.id)
      .sort();

  it('filters by payer, state, service type and code', async () => {
    expect(await listRouteIds({ payerId: 'payer_kaiser', insuranceState: 'hi' })).toEqual(
      expectedRouteIds((s) => s.payerId === 'payer_kaiser' && s.insuranceState === 'HI'),
    );
    expect(await listRouteIds({ serviceType: 'drug' })).toEqual(
      expectedRouteIds((s) => s.serviceType === 'drug'),
    );
    expect(await listRouteIds({ serviceCode: '0074-0554-02', insuranceState: 'CA' })).toEqual(
      expectedRouteIds((s) => s.serviceCode === '00074055402' && s.insuranceState === 'CA'),
    );
    expect(await listRouteIds({ payerId: 'payer_bsca', serviceCode: 'e1390' })).toEqual([
      'route_bsca_ca_hcpcs_e1390',
    ]);
    expect(await listRouteIds({ payerId: 'payer_molina', serviceType: 'drug' })).toEqual([]);
  });

  it('pages through every route exactly once, in id order', async () => {
    const { ids } = await drain((after) => payers.listRoutes({ limit: 97, after }), 97);
    expect(ids).toHaveLength(catalog.routes.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(await dbOrder('routes'));
    const page = await payers.listRoutes({ payerId: 'payer_uhc', limit: 1 });
    expect(page.items[0]).toMatchObject({ portalAuthModes: ['automated', 'customer_login'] });
  });
});
