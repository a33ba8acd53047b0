import type { DataSource, EntityManager } from 'typeorm';
import { buildCatalog } from './catalog';
import { toPayerRow, toRouteRow } from './catalog.mapper';
import type { CatalogSnapshot } from './catalog.types';

// Any constant works; it only has to be the same in every process that seeds this database (and differ from
// the migration lock). Imports of route templates take it too, so seeding and imports take turns.
export const CATALOG_SEED_LOCK_KEY = 7_310_442_902;
/**
 * `catalog_version` of a route an operator imported: this prefix and the route's template version. Seeding
 * neither compares, replaces nor deletes such routes (decision 0018).
 */
export const IMPORTED_CATALOG_VERSION_PREFIX = 'import:';
const ROUTE_BATCH_SIZE = 200;

export interface SeedCatalogOptions {
  /** The catalog to seed; the one shipped with this code by default. */
  catalog?: CatalogSnapshot;
  /**
   * Replace a catalog of a NEWER version than this one. Off by default, so an older process still running
   * during a rolling deploy cannot roll the catalog back.
   */
  allowDowngrade?: boolean;
}

export interface SeedCatalogResult {
  version: string;
  /** True when a newer catalog version was found and nothing was changed. */
  skipped: boolean;
  /** Rows inserted or changed (an identical row is left untouched), and rows removed. */
  payers: { written: number; deleted: number };
  routes: { written: number; deleted: number };
}

const PAYER_COLUMNS = `id text, display_name text, supported_states text[], supported_service_types text[], aliases text[],
  status text, brand text, line_of_business text, catalog_version text, search_text text`;
const PAYER_FIELDS = [
  'display_name',
  'supported_states',
  'supported_service_types',
  'aliases',
  'status',
  'brand',
  'line_of_business',
  'catalog_version',
  'search_text',
];

const ROUTE_COLUMNS = `id text, payer_id text, insurance_state text, service_type text, service_code text,
  service_code_system text, portal_auth_modes text[], questionnaire jsonb, document_requirements jsonb, catalog_version text`;
const ROUTE_FIELDS = [
  'payer_id',
  'insurance_state',
  'service_type',
  'service_code',
  'service_code_system',
  'portal_auth_modes',
  'questionnaire',
  'document_requirements',
  'catalog_version',
];

/**
 * `INSERT … SELECT FROM jsonb_to_recordset … ON CONFLICT (id) DO UPDATE`, touching only rows that differ, so
 * re-seeding an unchanged catalog writes nothing. Returns the number of rows inserted or changed.
 */
async function upsert(
  manager: EntityManager,
  table: 'payers' | 'routes',
  recordType: string,
  fields: string[],
  rows: object[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const all = ['id', ...fields];
  const written: unknown[] = await manager.query(
    `INSERT INTO ${table} (${all.join(', ')})
     SELECT ${all.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(${recordType})
     ON CONFLICT (id) DO UPDATE SET ${fields.map((field) => `${field} = EXCLUDED.${field}`).join(', ')}
     WHERE (${fields.map((field) => `${table}.${field}`).join(', ')})
       IS DISTINCT FROM (${fields.map((field) => `EXCLUDED.${field}`).join(', ')})
     RETURNING id`,
    [JSON.stringify(rows)],
  );
  return written.length;
}

/** Compares `YYYY-MM-DD`-style versions by code unit, independent of the database collation. */
const isNewer = (candidate: string, than: string): boolean => candidate > than;

/**
 * Writes the catalog into `payers` and `routes` in one transaction: upserts every payer and route by id and
 * deletes those the catalog no longer has. Idempotent, and safe when several processes seed at once: a
 * transaction-level advisory lock makes them take turns, and the later ones find nothing to change. Readers
 * see either the old or the new catalog, never a mix.
 */
export async function seedCatalog(
  dataSource: DataSource,
  options: SeedCatalogOptions = {},
): Promise<SeedCatalogResult> {
  const catalog = options.catalog ?? buildCatalog();
  const result: SeedCatalogResult = {
    version: catalog.version,
    skipped: false,
    payers: { written: 0, deleted: 0 },
    routes: { written: 0, deleted: 0 },
  };
  await dataSource.transaction(async (manager) => {
    await manager.query('SELECT pg_advisory_xact_lock($1)', [CATALOG_SEED_LOCK_KEY]);

    if (!options.allowDowngrade) {
      const versions: Array<{ catalog_version: string }> = await manager.query(
        `SELECT DISTINCT catalog_version FROM payers
         UNION SELECT DISTINCT catalog_version FROM routes WHERE NOT starts_with(catalog_version, $1)`,
        [IMPORTED_CATALOG_VERSION_PREFIX],
      );
      if (versions.some((row) => isNewer(row.catalog_version, catalog.version))) {
        result.skipped = true;
        return;
      }
    }

    const imported: Array<{ id: string }> = await manager.query(
      'SELECT id FROM routes WHERE starts_with(catalog_version, $1)',
      [IMPORTED_CATALOG_VERSION_PREFIX],
    );
    const importedIds = new Set(imported.map((row) => row.id));
    const shippedRoutes = catalog.routes.filter((route) => !importedIds.has(route.id));
    const payerIds = catalog.payers.map((payer) => payer.id);
    const routeIds = shippedRoutes.map((route) => route.id);

    result.payers.written = await upsert(
      manager,
      'payers',
      PAYER_COLUMNS,
      PAYER_FIELDS,
      catalog.payers.map((payer) => toPayerRow(payer, catalog.version)),
    );
    // Stale routes go before the upsert, so a new route id never collides with an old row on the unique key.
    const deletedRoutes: [unknown[], number] = await manager.query(
      'DELETE FROM routes WHERE id <> ALL($1::text[]) AND NOT starts_with(catalog_version, $2) RETURNING id',
      [routeIds, IMPORTED_CATALOG_VERSION_PREFIX],
    );
    result.routes.deleted = deletedRoutes[1];
    for (let start = 0; start < shippedRoutes.length; start += ROUTE_BATCH_SIZE) {
      const batch = shippedRoutes
        .slice(start, start + ROUTE_BATCH_SIZE)
        .map((route) => toRouteRow(route, catalog.version));
      result.routes.written += await upsert(manager, 'routes', ROUTE_COLUMNS, ROUTE_FIELDS, batch);
    }
    // A payer an imported route still names stays (the route references it).
    const deletedPayers: [unknown[], number] = await manager.query(
      `DELETE FROM payers WHERE id <> ALL($1::text[])
         AND id NOT IN (SELECT payer_id FROM routes WHERE starts_with(catalog_version, $2)) RETURNING id`,
      [payerIds, IMPORTED_CATALOG_VERSION_PREFIX],
    );
    result.payers.deleted = deletedPayers[1];
  });
  return result;
}
