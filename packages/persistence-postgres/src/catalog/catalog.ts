import type {
  CatalogPayer,
  CatalogRoute,
  CatalogServiceCodeSystem,
  CatalogSnapshot,
  CatalogTemplateSelection,
} from './catalog.types';
import { CATALOG_VERSION } from './data/catalog-version';
import { PAYER_DEFINITIONS } from './data/payers';
import { SERVICE_TEMPLATES } from './data/questionnaire-templates';
import { SERVICE_DEFINITIONS } from './data/services';

export { CATALOG_VERSION } from './data/catalog-version';
export { ICD10_PATTERN, PATIENT_LINK_IDS } from './data/questionnaire-templates';

/** NDC 10-digit segment layouts and the segment that gets a leading zero to reach the 11-digit 5-4-2 form. */
const NDC_LAYOUTS: Record<string, number> = { '4-4-2': 0, '5-3-2': 1, '5-4-1': 2, '5-4-2': -1 };

/**
 * The canonical form of a service code, as stored in the catalog: trimmed and upper-case for CPT and HCPCS;
 * for NDC the 11-digit 5-4-2 form without dashes (a dashed 4-4-2, 5-3-2 or 5-4-1 code is zero-padded). A code
 * that fits no known shape is returned trimmed and upper-cased, so it simply matches no route.
 */
export function normalizeServiceCode(system: CatalogServiceCodeSystem | string, code: string): string {
  const trimmed = code.trim().toUpperCase();
  if (system !== 'ndc') return trimmed;
  const segments = trimmed.split('-');
  if (segments.length === 1) return trimmed;
  if (segments.length !== 3 || !segments.every((segment) => /^[0-9]+$/.test(segment))) return trimmed;
  const pad = NDC_LAYOUTS[segments.map((segment) => segment.length).join('-')];
  if (pad === undefined) return trimmed;
  return segments.map((segment, index) => (index === pad ? `0${segment}` : segment)).join('');
}

/** Deterministic route id: `route_<payer id without "payer_">_<state>_<system>_<code>`, lower-case. */
export function routeIdFor(selection: Omit<CatalogTemplateSelection, 'serviceType'>): string {
  const payer = selection.payerId.replace(/^payer_/, '');
  return `route_${payer}_${selection.insuranceState}_${selection.serviceCodeSystem}_${selection.serviceCode}`.toLowerCase();
}

const compact = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, '');

/**
 * What `q` searches: the display name and aliases, lower-case, each also without spaces and punctuation, so
 * "united health care", "unitedhealthcare" and "uhc" all find UnitedHealthcare.
 */
export function payerSearchText(payer: Pick<CatalogPayer, 'displayName' | 'aliases'>): string {
  const terms = [payer.displayName, ...payer.aliases];
  const parts = [
    ...terms.map((term) => term.toLowerCase().replace(/\s+/g, ' ').trim()),
    ...terms.map(compact),
  ];
  return [...new Set(parts.filter((part) => part !== ''))].join(' | ');
}

/** The search terms a `q` value is matched with: itself lower-cased, and its compact form when different. */
export function payerSearchTerms(q: string): string[] {
  const plain = q.toLowerCase().replace(/\s+/g, ' ').trim();
  const terms = [plain, compact(q)].filter((term) => term !== '');
  return [...new Set(terms)];
}

/**
 * The catalog shipped with this code: every payer × supported state × service whose type the payer supports.
 * Routes share their questionnaire and document-requirement objects; treat them as read-only.
 */
export function buildCatalog(): CatalogSnapshot {
  const payers: CatalogPayer[] = [];
  const routes: CatalogRoute[] = [];
  for (const { portalAuthModes, ...payer } of PAYER_DEFINITIONS) {
    payers.push({ ...payer, supportedStates: [...payer.supportedStates].sort() });
    for (const insuranceState of [...payer.supportedStates].sort()) {
      for (const service of SERVICE_DEFINITIONS) {
        if (!payer.supportedServiceTypes.includes(service.serviceType)) continue;
        const template = SERVICE_TEMPLATES[service.templateKey];
        const templateSelection: CatalogTemplateSelection = {
          payerId: payer.id,
          insuranceState,
          serviceType: service.serviceType,
          serviceCode: service.serviceCode,
          serviceCodeSystem: service.serviceCodeSystem,
        };
        routes.push({
          id: routeIdFor(templateSelection),
          templateSelection,
          portalAuthModes: [...portalAuthModes],
          questionnaire: template.questionnaire,
          documentRequirements: template.documentRequirements,
        });
      }
    }
  }
  return { version: CATALOG_VERSION, payers, routes };
}
