import type { PayerRow, RouteRow } from './catalog.entity';
import { payerSearchText } from './catalog';
import type {
  CatalogPayer,
  CatalogPortalAuthMode,
  CatalogRoute,
  CatalogServiceCodeSystem,
  CatalogServiceType,
} from './catalog.types';

export const toPayer = (row: PayerRow): CatalogPayer => ({
  id: row.id,
  displayName: row.display_name,
  supportedStates: [...row.supported_states],
  supportedServiceTypes: row.supported_service_types as CatalogServiceType[],
  aliases: [...row.aliases],
  status: row.status,
  brand: row.brand,
  lineOfBusiness: row.line_of_business,
});

export const toPayerRow = (payer: CatalogPayer, catalogVersion: string): PayerRow => ({
  id: payer.id,
  display_name: payer.displayName,
  supported_states: [...payer.supportedStates],
  supported_service_types: [...payer.supportedServiceTypes],
  aliases: [...payer.aliases],
  status: payer.status,
  brand: payer.brand,
  line_of_business: payer.lineOfBusiness,
  catalog_version: catalogVersion,
  search_text: payerSearchText(payer),
});

export const toRoute = (row: RouteRow): CatalogRoute => ({
  id: row.id,
  templateSelection: {
    payerId: row.payer_id,
    insuranceState: row.insurance_state,
    serviceType: row.service_type as CatalogServiceType,
    serviceCode: row.service_code,
    serviceCodeSystem: row.service_code_system as CatalogServiceCodeSystem,
  },
  portalAuthModes: row.portal_auth_modes as CatalogPortalAuthMode[],
  questionnaire: row.questionnaire,
  documentRequirements: row.document_requirements,
});

export const toRouteRow = (route: CatalogRoute, catalogVersion: string): RouteRow => ({
  id: route.id,
  payer_id: route.templateSelection.payerId,
  insurance_state: route.templateSelection.insuranceState,
  service_type: route.templateSelection.serviceType,
  service_code: route.templateSelection.serviceCode,
  service_code_system: route.templateSelection.serviceCodeSystem,
  portal_auth_modes: [...route.portalAuthModes],
  questionnaire: route.questionnaire,
  document_requirements: route.documentRequirements,
  catalog_version: catalogVersion,
});
