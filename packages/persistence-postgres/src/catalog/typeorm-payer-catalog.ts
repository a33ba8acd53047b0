import type { Environment } from '@prior-auth/domain';
import { Brackets, type DataSource, type SelectQueryBuilder } from 'typeorm';
import { normalizeServiceCode, payerSearchTerms } from './catalog';
import { PayerEntity, RouteEntity, type PayerRow, type RouteRow } from './catalog.entity';
import { toPayer, toRoute } from './catalog.mapper';
import { sharedQuestionnaire } from '../authorization/questionnaire-text-cache';
import { managerOf, type PostgresTransaction } from '../unit-of-work/postgres-transaction';
import type {
  CatalogKeyset,
  CatalogPage,
  CatalogPayer,
  CatalogPort,
  CatalogRoute,
  CatalogTemplateSelection,
  ListPayersQuery,
  ListRoutesQuery,
} from './catalog.types';

/** `%`, `_` and the escape character itself are literal in `q`. */
const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);

function assertLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a positive integer, got ${limit}`);
}

/** Fetches `limit + 1` rows ordered by id to learn whether another page follows. */
async function page<Row extends { id: string }, T>(
  query: SelectQueryBuilder<Row>,
  alias: string,
  limit: number,
  after: CatalogKeyset | undefined,
  map: (row: Row) => T,
): Promise<CatalogPage<T>> {
  assertLimit(limit);
  if (after) query.andWhere(`${alias}.id > :afterId`, { afterId: after.id });
  const rows = await query
    .orderBy(`${alias}.id`, 'ASC')
    .limit(limit + 1)
    .getMany();
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items: items.map(map), nextAfter: rows.length > limit && last ? { id: last.id } : null };
}

/**
 * The payer/route catalog in PostgreSQL (seeded by `seedCatalog`). Implements the domain's `PayerCatalog`
 * port plus the listings behind `GET /v1/payers` and `GET /v1/prior-auth/routes` (decision 0025).
 * Both environments read the same catalog today; `environment` is accepted for per-environment catalogs.
 */
export class TypeOrmPayerCatalog implements CatalogPort {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx?: PostgresTransaction,
  ) {}

  /** The same reads on `tx`'s connection (a command's: no second connection while it holds one). */
  on(tx: PostgresTransaction): TypeOrmPayerCatalog {
    return new TypeOrmPayerCatalog(this.dataSource, tx);
  }

  private get payers() {
    return managerOf(this.dataSource, this.tx).getRepository(PayerEntity);
  }

  private get routes() {
    return managerOf(this.dataSource, this.tx).getRepository(RouteEntity);
  }

  async getPayer(payerId: string): Promise<CatalogPayer | null> {
    const row = await this.payers.findOneBy({ id: payerId });
    return row ? toPayer(row) : null;
  }

  /** Exact lookup on the routes' unique key; the state and code are normalized first (`ca`, `0074-0554-02`). */
  async findRoute(
    selection: CatalogTemplateSelection,
    _environment: Environment,
  ): Promise<CatalogRoute | null> {
    const row = await this.routes.findOneBy({
      payer_id: selection.payerId,
      insurance_state: selection.insuranceState.trim().toUpperCase(),
      service_type: selection.serviceType,
      service_code_system: selection.serviceCodeSystem,
      service_code: normalizeServiceCode(selection.serviceCodeSystem, selection.serviceCode),
    });
    return row ? caseRoute(row) : null;
  }

  /** The route with this id (as pinned on an authorization), or null once the catalog no longer has it. */
  async getRoute(routeId: string): Promise<CatalogRoute | null> {
    const row = await this.routes.findOneBy({ id: routeId });
    return row ? caseRoute(row) : null;
  }

  /**
   * Payers ordered by id, keyset-paginated. `q` is a case-insensitive substring of the name or an alias
   * (spaces and punctuation optional); `state` and `serviceType` must be supported by the payer.
   */
  async listPayers(query: ListPayersQuery): Promise<CatalogPage<CatalogPayer>> {
    const builder = this.payers.createQueryBuilder('p');
    const terms = query.q === undefined ? [] : payerSearchTerms(query.q);
    if (terms.length > 0) {
      builder.andWhere(
        new Brackets((any) => {
          terms.forEach((term, index) =>
            any.orWhere(`p.search_text ILIKE :term${index}`, { [`term${index}`]: `%${escapeLike(term)}%` }),
          );
        }),
      );
    }
    if (query.state !== undefined) {
      builder.andWhere('p.supported_states @> ARRAY[:state]::text[]', {
        state: query.state.trim().toUpperCase(),
      });
    }
    if (query.serviceType !== undefined) {
      builder.andWhere('p.supported_service_types @> ARRAY[:serviceType]::text[]', {
        serviceType: query.serviceType,
      });
    }
    return page<PayerRow, CatalogPayer>(builder, 'p', query.limit, query.after, toPayer);
  }

  /** Routes ordered by id, keyset-paginated; every filter is optional and exact (after normalization). */
  async listRoutes(query: ListRoutesQuery): Promise<CatalogPage<CatalogRoute>> {
    const builder = this.routes.createQueryBuilder('r');
    if (query.payerId !== undefined) builder.andWhere('r.payer_id = :payerId', { payerId: query.payerId });
    if (query.insuranceState !== undefined) {
      builder.andWhere('r.insurance_state = :insuranceState', {
        insuranceState: query.insuranceState.trim().toUpperCase(),
      });
    }
    if (query.serviceType !== undefined)
      builder.andWhere('r.service_type = :serviceType', { serviceType: query.serviceType });
    if (query.serviceCode !== undefined) {
      // The NDC rule only rewrites dashed digit groups, which no CPT or HCPCS code has.
      builder.andWhere('r.service_code = :serviceCode', {
        serviceCode: normalizeServiceCode('ndc', query.serviceCode),
      });
    }
    return page<RouteRow, CatalogRoute>(builder, 'r', query.limit, query.after, toRoute);
  }
}

/** A route a case is created on or read against: its questionnaire is the one shared object for its text. */
const caseRoute = (row: RouteRow): CatalogRoute => {
  const route = toRoute(row);
  return { ...route, questionnaire: sharedQuestionnaire(route.questionnaire) };
};
