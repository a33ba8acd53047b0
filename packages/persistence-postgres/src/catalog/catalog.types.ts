import {
  SERVICE_CODE_SYSTEMS,
  SERVICE_TYPES,
  type Payer,
  type PayerCatalog,
  type PortalAuthMode,
  type Route,
  type ServiceCodeSystem,
  type ServiceType,
  type TemplateSelection,
} from '@prior-auth/domain';

/*
 * The catalog's names for the domain's catalog types and value lists: the same definitions, so
 * `TypeOrmPayerCatalog` is the domain's `PayerCatalog` port and the catalog data cannot drift from the domain.
 */

export type CatalogServiceType = ServiceType;
export type CatalogServiceCodeSystem = ServiceCodeSystem;
export type CatalogPortalAuthMode = PortalAuthMode;
export const CATALOG_SERVICE_TYPES = SERVICE_TYPES;
export const CATALOG_SERVICE_CODE_SYSTEMS = SERVICE_CODE_SYSTEMS;
export type CatalogPayer = Payer;
export type CatalogTemplateSelection = TemplateSelection;
/** A serviceable route pins the questionnaire and documents (decision 0025). */
export type CatalogRoute = Route;
export type CatalogPort = PayerCatalog;

/** Keyset position: the id of the last row of the previous page. The API signs it into an opaque cursor. */
export interface CatalogKeyset {
  id: string;
}

export interface CatalogPage<T> {
  items: T[];
  /** The keyset to pass as `after` for the next page; null when this page is the last. */
  nextAfter: CatalogKeyset | null;
}

export interface ListPayersQuery {
  /** Case-insensitive substring of the display name or an alias. */
  q?: string;
  /** Two-letter state the payer must support. */
  state?: string;
  serviceType?: CatalogServiceType;
  limit: number;
  after?: CatalogKeyset;
}

export interface ListRoutesQuery {
  payerId?: string;
  insuranceState?: string;
  serviceType?: CatalogServiceType;
  /** Matched after normalization (see `normalizeServiceCode`), across all code systems. */
  serviceCode?: string;
  limit: number;
  after?: CatalogKeyset;
}

/** One version of the whole catalog, as shipped in code and seeded into PostgreSQL. */
export interface CatalogSnapshot {
  version: string;
  payers: CatalogPayer[];
  routes: CatalogRoute[];
}
