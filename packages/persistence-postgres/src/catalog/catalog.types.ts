import type { DocumentRequirement, Environment, QuestionnaireTemplate } from '@prior-auth/domain';

/*
 * Local copies of the catalog types of `@prior-auth/domain` (`authorization/authorization.types.ts` and
 * `ports/payer-catalog.port.ts`). They are structurally identical, so `TypeOrmPayerCatalog` satisfies the
 * domain's `PayerCatalog` port as is. They exist only because the domain package does not export those types
 * from its index yet; once it does, replace this file's declarations with re-exports from '@prior-auth/domain'.
 */

export type CatalogServiceType = 'inpatient' | 'outpatient' | 'drug';
export type CatalogServiceCodeSystem = 'hcpcs' | 'cpt' | 'ndc';
export type CatalogPortalAuthMode = 'automated' | 'customer_login';

export const CATALOG_SERVICE_TYPES = [
  'inpatient',
  'outpatient',
  'drug',
] as const satisfies readonly CatalogServiceType[];
export const CATALOG_SERVICE_CODE_SYSTEMS = [
  'hcpcs',
  'cpt',
  'ndc',
] as const satisfies readonly CatalogServiceCodeSystem[];

/** Same shape as the domain's `Payer`. */
export interface CatalogPayer {
  id: string;
  displayName: string;
  supportedStates: string[];
  supportedServiceTypes: CatalogServiceType[];
  aliases: string[];
  status: string;
  brand: string | null;
  lineOfBusiness: string | null;
}

/** Same shape as the domain's `TemplateSelection`. */
export interface CatalogTemplateSelection {
  payerId: string;
  insuranceState: string;
  serviceType: CatalogServiceType;
  serviceCode: string;
  serviceCodeSystem: CatalogServiceCodeSystem;
}

/** Same shape as the domain's `Route`: a serviceable route pins the questionnaire and documents (decision 11). */
export interface CatalogRoute {
  id: string;
  templateSelection: CatalogTemplateSelection;
  portalAuthModes: CatalogPortalAuthMode[];
  questionnaire: QuestionnaireTemplate;
  documentRequirements: DocumentRequirement[];
}

/** Same shape as the domain's `PayerCatalog` port. */
export interface CatalogPort {
  getPayer(payerId: string): Promise<CatalogPayer | null>;
  /** The route serving exactly this selection in this environment, or null. */
  findRoute(selection: CatalogTemplateSelection, environment: Environment): Promise<CatalogRoute | null>;
}

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
