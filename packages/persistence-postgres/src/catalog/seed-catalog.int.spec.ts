import type { DataSource } from 'typeorm';
import { buildCatalog, CATALOG_VERSION, PATIENT_LINK_IDS } from './catalog';
import type { CatalogSnapshot } from './catalog.types';
import { seedCatalog } from './seed-catalog';
import { openCatalogDataSource, withScratchDatabase } from './testing/catalog-test-database';

const catalog = buildCatalog();

async function counts(dataSource: DataSource) {
  const [row] = await dataSource.query(
    `SELECT (SELECT count(*)::int FROM payers) AS payers, (SELECT count(*)::int FROM routes) AS routes,
            (SELECT array_agg(DISTINCT catalog_version) FROM payers) AS payer_versions,
            (SELECT array_agg(DISTINCT catalog_version) FROM routes) AS route_versions`,
  );
  return row as { payers: number; routes: number; payer_versions: string[]; route_versions: string[] };
}

/** Runs `work` with a DataSource on a fresh, migrated, empty database. */
const withEmptyCatalog = (work: (dataSource: DataSource, url: string) => Promise<void>) =>
  withScratchDatabase(async (url) => {
    const dataSource = await openCatalogDataSource(url, 3);
    try {
      await work(dataSource, url);
    } finally {
      await dataSource.destroy();
    }
  });

describe('seedCatalog', () => {
  jest.setTimeout(60_000);

  it('writes the whole catalog once, then finds nothing to change', async () => {
    await withEmptyCatalog(async (dataSource) => {
      const first = await seedCatalog(dataSource);
      expect(first).toEqual({
        version: CATALOG_VERSION,
        skipped: false,
        payers: { written: catalog.payers.length, deleted: 0 },
        routes: { written: catalog.routes.length, deleted: 0 },
      });
      const second = await seedCatalog(dataSource);
      expect(second).toEqual({
        version: CATALOG_VERSION,
        skipped: false,
        payers: { written: 0, deleted: 0 },
        routes: { written: 0, deleted: 0 },
      });
      expect(await counts(dataSource)).toEqual({
        payers: catalog.payers.length,
        routes: catalog.routes.length,
        payer_versions: [CATALOG_VERSION],
        route_versions: [CATALOG_VERSION],
      });
      const [uhc] = await dataSource.query(`SELECT search_text, brand FROM payers WHERE id = 'payer_uhc'`);
      expect(uhc.search_text).toContain('uhc');
      expect(uhc.search_text).toBe(uhc.search_text.toLowerCase());
    });
  });

  it('lets several processes seed at once: each row is written exactly once', async () => {
    await withEmptyCatalog(async (_unused, url) => {
      const sources = await Promise.all([1, 2, 3].map(() => openCatalogDataSource(url, 2)));
      try {
        const results = await Promise.all(sources.map((source) => seedCatalog(source)));
        expect(results.reduce((sum, result) => sum + result.payers.written, 0)).toBe(catalog.payers.length);
        expect(results.reduce((sum, result) => sum + result.routes.written, 0)).toBe(catalog.routes.length);
        expect(await counts(sources[0]!)).toMatchObject({
          payers: catalog.payers.length,
          routes: catalog.routes.length,
        });
      } finally {
        await Promise.all(sources.map((source) => source.destroy()));
      }
    });
  });

  it('replaces an older catalog version: changed rows updated, removed payers and routes deleted', async () => {
    await withEmptyCatalog(async (dataSource) => {
      await seedCatalog(dataSource);
      const next: CatalogSnapshot = {
        version: '2099-01-01',
        payers: catalog.payers
          .filter((payer) => payer.id !== 'payer_molina')
          .map((payer) =>
            payer.id === 'payer_aetna' ? { ...payer, aliases: [...payer.aliases, 'Aetna Medicare'] } : payer,
          ),
        routes: catalog.routes.filter(
          (route) =>
            route.templateSelection.payerId !== 'payer_molina' &&
            route.templateSelection.insuranceState !== 'WY',
        ),
      };
      const molinaRoutes = catalog.routes.filter(
        (route) => route.templateSelection.payerId === 'payer_molina',
      ).length;
      const wyomingRoutes = catalog.routes.filter(
        (route) => route.templateSelection.insuranceState === 'WY',
      ).length;

      const result = await seedCatalog(dataSource, { catalog: next });
      expect(result.payers).toEqual({ written: next.payers.length, deleted: 1 });
      expect(result.routes).toEqual({ written: next.routes.length, deleted: molinaRoutes + wyomingRoutes });
      expect(await counts(dataSource)).toEqual({
        payers: next.payers.length,
        routes: next.routes.length,
        payer_versions: ['2099-01-01'],
        route_versions: ['2099-01-01'],
      });
      const [aetna] = await dataSource.query(
        `SELECT aliases, search_text FROM payers WHERE id = 'payer_aetna'`,
      );
      expect(aetna.aliases).toContain('Aetna Medicare');
      expect(aetna.search_text).toContain('aetna medicare');

      // An older process (say, during a rolling deploy) does not roll the catalog back ...
      const stale = await seedCatalog(dataSource);
      expect(stale.skipped).toBe(true);
      expect((await counts(dataSource)).payers).toBe(next.payers.length);
      // ... unless told to.
      const restored = await seedCatalog(dataSource, { allowDowngrade: true });
      expect(restored.payers.deleted).toBe(0);
      expect(await counts(dataSource)).toMatchObject({
        payers: catalog.payers.length,
        routes: catalog.routes.length,
      });
    });
  });

  it('changes nothing when any row is rejected (one transaction)', async () => {
    await withEmptyCatalog(async (dataSource) => {
      await seedCatalog(dataSource);
      const broken: CatalogSnapshot = {
        version: '2099-01-01',
        payers: catalog.payers.filter((payer) => payer.id !== 'payer_bsca'),
        routes: [
          ...catalog.routes.filter((route) => route.templateSelection.payerId !== 'payer_bsca'),
          // A route of a payer that the catalog does not have violates the foreign key.
          {
            ...catalog.routes[0]!,
            id: 'route_ghost_ca_cpt_70553',
            templateSelection: { ...catalog.routes[0]!.templateSelection, payerId: 'payer_ghost' },
          },
        ],
      };
      await expect(seedCatalog(dataSource, { catalog: broken })).rejects.toThrow();
      expect(await counts(dataSource)).toEqual({
        payers: catalog.payers.length,
        routes: catalog.routes.length,
        payer_versions: [CATALOG_VERSION],
        route_versions: [CATALOG_VERSION],
      });
    });
  });

  it('stores every route with a questionnaire that has the four patient linkIds (decision 0025)', async () => {
    const dataSource = await openCatalogDataSource();
    try {
      await seedCatalog(dataSource);
      const missing: Array<{ id: string }> = await dataSource.query(
        `SELECT r.id FROM routes r
          WHERE NOT COALESCE((
            SELECT array_agg(item->>'linkId')
              FROM jsonb_array_elements(r.questionnaire->'groups') AS g(grp),
                   jsonb_array_elements(g.grp->'items') AS i(item)
             WHERE g.grp->>'id' = 'patient'
          ), '{}') @> $1::text[]`,
        [[...PATIENT_LINK_IDS]],
      );
      expect(missing).toEqual([]);
      const [{ total }] = await dataSource.query('SELECT count(*)::int AS total FROM routes');
      expect(total).toBe(catalog.routes.length);
    } finally {
      await dataSource.destroy();
    }
  });
});
