import { validateTemplate, type DocumentRequirement, type QuestionnaireTemplate } from '@prior-auth/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { normalizeServiceCode, routeIdFor } from './catalog';
import type { RouteRow } from './catalog.entity';
import { toRoute, toRouteRow } from './catalog.mapper';
import {
  CATALOG_SERVICE_CODE_SYSTEMS,
  CATALOG_SERVICE_TYPES,
  type CatalogPortalAuthMode,
  type CatalogRoute,
  type CatalogTemplateSelection,
} from './catalog.types';
import { PATIENT_LINK_IDS, patientGroup } from './data/questionnaire-templates';
import { CATALOG_SEED_LOCK_KEY, IMPORTED_CATALOG_VERSION_PREFIX } from './seed-catalog';

/** Why an import was refused; `code` is stable, the message names what to change. */
export class CatalogImportError extends Error {
  constructor(
    readonly code:
      | 'payer_not_found'
      | 'invalid_selection'
      | 'payer_does_not_serve'
      | 'incomplete_patient_group'
      | 'route_not_found',
    message: string,
  ) {
    super(message);
    this.name = 'CatalogImportError';
  }
}

export interface ImportRouteTemplateInput {
  templateSelection: CatalogTemplateSelection;
  /** The questionnaire as imported; its version is replaced by the route's next template version. */
  questionnaire: QuestionnaireTemplate;
  documentRequirements: DocumentRequirement[];
}

export interface ImportRouteTemplateResult {
  route: CatalogRoute;
  /** 1 for the first import on this route, then one more per import. */
  templateVersion: number;
  /** The template version the route served before, if any (a shipped route's is its catalog version). */
  previousVersion: string | null;
  /** True when the form lacked the patient group and it was added. */
  patientGroupAdded: boolean;
}

/** A route as `catalog list` shows it. */
export interface CatalogRouteSummary {
  id: string;
  templateSelection: CatalogTemplateSelection;
  templateId: string;
  templateVersion: string;
  title: string;
  imported: boolean;
}

const isImported = (catalogVersion: string): boolean =>
  catalogVersion.startsWith(IMPORTED_CATALOG_VERSION_PREFIX);

/**
 * Creates or versions the route serving `templateSelection` with an imported questionnaire (decision 0018). One
 * transaction under the catalog's advisory lock, so concurrent imports (and seeding) take turns and each
 * gets its own version. The row is replaced: cases already created keep the questionnaire they copied when
 * they were created, so they stay on their version. Seeding leaves imported routes alone.
 */
export async function importRouteTemplate(
  dataSource: DataSource,
  input: ImportRouteTemplateInput,
): Promise<ImportRouteTemplateResult> {
  const selection = normalizedSelection(input.templateSelection);
  const { questionnaire, patientGroupAdded } = withPatientGroup(input.questionnaire);
  return dataSource.transaction(async (manager) => {
    await manager.query('SELECT pg_advisory_xact_lock($1)', [CATALOG_SEED_LOCK_KEY]);
    await assertPayerServes(manager, selection);
    const existing: Array<
      Pick<RouteRow, 'id' | 'catalog_version' | 'portal_auth_modes'> & { version: string }
    > = await manager.query(
      `SELECT id, catalog_version, portal_auth_modes, questionnaire->>'version' AS version FROM routes
         WHERE payer_id = $1 AND insurance_state = $2 AND service_type = $3 AND service_code_system = $4
           AND service_code = $5`,
      [
        selection.payerId,
        selection.insuranceState,
        selection.serviceType,
        selection.serviceCodeSystem,
        selection.serviceCode,
      ],
    );
    const previous = existing[0];
    const templateVersion =
      previous && isImported(previous.catalog_version)
        ? Number(previous.catalog_version.slice(IMPORTED_CATALOG_VERSION_PREFIX.length)) + 1
        : 1;
    const route: CatalogRoute = {
      id: previous?.id ?? routeIdFor(selection),
      templateSelection: selection,
      portalAuthModes:
        (previous?.portal_auth_modes as CatalogPortalAuthMode[] | undefined) ??
        (await payerPortalAuthModes(manager, selection.payerId)),
      questionnaire: { ...questionnaire, version: String(templateVersion) },
      documentRequirements: input.documentRequirements,
    };
    // The same checks a case's evaluation makes, so an imported route can never fail at run time.
    validateTemplate(route.questionnaire, route.documentRequirements);
    const row = toRouteRow(route, `${IMPORTED_CATALOG_VERSION_PREFIX}${templateVersion}`);
    await manager.query(
      `INSERT INTO routes (id, payer_id, insurance_state, service_type, service_code, service_code_system,
         portal_auth_modes, questionnaire, document_requirements, catalog_version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (id) DO UPDATE SET portal_auth_modes = EXCLUDED.portal_auth_modes,
         questionnaire = EXCLUDED.questionnaire, document_requirements = EXCLUDED.document_requirements,
         catalog_version = EXCLUDED.catalog_version`,
      [
        row.id,
        row.payer_id,
        row.insurance_state,
        row.service_type,
        row.service_code,
        row.service_code_system,
        row.portal_auth_modes,
        JSON.stringify(row.questionnaire),
        JSON.stringify(row.document_requirements),
        row.catalog_version,
      ],
    );
    return {
      route,
      templateVersion,
      previousVersion: previous?.version ?? null,
      patientGroupAdded,
    };
  });
}

/** Every route, ordered by id, with its template's identity; imported ones marked. */
export async function listCatalogRoutes(
  dataSource: DataSource,
  filter: { payerId?: string } = {},
): Promise<CatalogRouteSummary[]> {
  const rows: Array<RouteRow & { template_id: string; template_version: string; title: string }> =
    await dataSource.query(
      `SELECT id, payer_id, insurance_state, service_type, service_code, service_code_system, catalog_version,
         questionnaire->>'id' AS template_id, questionnaire->>'version' AS template_version,
         questionnaire->>'title' AS title
       FROM routes WHERE ($1::text IS NULL OR payer_id = $1) ORDER BY id`,
      [filter.payerId ?? null],
    );
  return rows.map((row) => ({
    id: row.id,
    templateSelection: {
      payerId: row.payer_id,
      insuranceState: row.insurance_state,
      serviceType: row.service_type as CatalogTemplateSelection['serviceType'],
      serviceCode: row.service_code,
      serviceCodeSystem: row.service_code_system as CatalogTemplateSelection['serviceCodeSystem'],
    },
    templateId: row.template_id,
    templateVersion: row.template_version,
    title: row.title,
    imported: isImported(row.catalog_version),
  }));
}

/** One route in full, or a `route_not_found` error. */
export async function showCatalogRoute(
  dataSource: DataSource,
  routeId: string,
): Promise<CatalogRoute & { imported: boolean }> {
  const rows: RouteRow[] = await dataSource.query('SELECT * FROM routes WHERE id = $1', [routeId]);
  const row = rows[0];
  if (!row) throw new CatalogImportError('route_not_found', `no route ${routeId} in the catalog`);
  return { ...toRoute(row), imported: isImported(row.catalog_version) };
}

function normalizedSelection(selection: CatalogTemplateSelection): CatalogTemplateSelection {
  const insuranceState = selection.insuranceState.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(insuranceState))
    throw new CatalogImportError('invalid_selection', 'the state must be a two-letter code such as CA');
  if (!(CATALOG_SERVICE_TYPES as readonly string[]).includes(selection.serviceType))
    throw new CatalogImportError(
      'invalid_selection',
      `the service type must be one of ${CATALOG_SERVICE_TYPES.join(', ')}`,
    );
  if (!(CATALOG_SERVICE_CODE_SYSTEMS as readonly string[]).includes(selection.serviceCodeSystem))
    throw new CatalogImportError(
      'invalid_selection',
      `the service code system must be one of ${CATALOG_SERVICE_CODE_SYSTEMS.join(', ')}`,
    );
  const serviceCode = normalizeServiceCode(selection.serviceCodeSystem, selection.serviceCode);
  if (!/^[A-Z0-9]{1,20}$/.test(serviceCode))
    throw new CatalogImportError('invalid_selection', 'the service code must be letters and digits');
  return { ...selection, insuranceState, serviceCode };
}

/**
 * Every route's questionnaire carries the patient group (decision 0025): a form without any of its linkIds
 * gets it first; a form with only some of them is refused, as the two could not be told apart.
 */
function withPatientGroup(questionnaire: QuestionnaireTemplate): {
  questionnaire: QuestionnaireTemplate;
  patientGroupAdded: boolean;
} {
  const linkIds = new Set(questionnaire.groups.flatMap((group) => group.items.map((item) => item.linkId)));
  const present = PATIENT_LINK_IDS.filter((linkId) => linkIds.has(linkId));
  if (present.length === PATIENT_LINK_IDS.length) return { questionnaire, patientGroupAdded: false };
  if (present.length > 0) {
    const missing = PATIENT_LINK_IDS.filter((linkId) => !linkIds.has(linkId));
    throw new CatalogImportError(
      'incomplete_patient_group',
      `the form has ${present.join(', ')} but not ${missing.join(', ')}: give it all four or none (then they are added)`,
    );
  }
  return {
    questionnaire: { ...questionnaire, groups: [patientGroup(), ...questionnaire.groups] },
    patientGroupAdded: true,
  };
}

async function assertPayerServes(manager: EntityManager, selection: CatalogTemplateSelection): Promise<void> {
  const payers: Array<{ supported_states: string[]; supported_service_types: string[] }> =
    await manager.query('SELECT supported_states, supported_service_types FROM payers WHERE id = $1', [
      selection.payerId,
    ]);
  const payer = payers[0];
  if (!payer)
    throw new CatalogImportError('payer_not_found', `payer ${selection.payerId} is not in the catalog`);
  if (!payer.supported_states.includes(selection.insuranceState))
    throw new CatalogImportError(
      'payer_does_not_serve',
      `payer ${selection.payerId} does not serve ${selection.insuranceState} (it serves ${payer.supported_states.join(', ')})`,
    );
  if (!payer.supported_service_types.includes(selection.serviceType))
    throw new CatalogImportError(
      'payer_does_not_serve',
      `payer ${selection.payerId} does not cover ${selection.serviceType} services`,
    );
}

/** A new route takes the portal auth modes the payer's other routes have (they are per payer). */
async function payerPortalAuthModes(
  manager: EntityManager,
  payerId: string,
): Promise<CatalogPortalAuthMode[]> {
  const rows: Array<{ portal_auth_modes: CatalogPortalAuthMode[] }> = await manager.query(
    'SELECT portal_auth_modes FROM routes WHERE payer_id = $1 ORDER BY id LIMIT 1',
    [payerId],
  );
  return rows[0]?.portal_auth_modes ?? ['automated'];
}
