import type { CatalogPayer, CatalogRoute } from '@prior-auth/persistence-postgres';
import { presentQuestionnaire, type RouteServiceability } from '@prior-auth/domain';

/** The Payer object of the spec (field names exact). */
export const presentPayer = (payer: CatalogPayer) => ({
  id: payer.id,
  displayName: payer.displayName,
  supportedStates: payer.supportedStates,
  supportedServiceTypes: payer.supportedServiceTypes,
  aliases: payer.aliases,
  status: payer.status,
  ...(payer.brand ? { brand: payer.brand } : {}),
  ...(payer.lineOfBusiness ? { lineOfBusiness: payer.lineOfBusiness } : {}),
});

/**
 * Decision 0025's route: what the client must collect before creating an authorization on it, and (additive,
 * decision 0021) whether the caller can create on it now.
 */
export const presentRoute = (route: CatalogRoute, serviceability: RouteServiceability) => ({
  templateSelection: route.templateSelection,
  portalAuthModes: route.portalAuthModes,
  questionnaire: presentQuestionnaire(route.questionnaire, { item: [] }),
  documentRequirements: route.documentRequirements.map((doc) => ({
    type: doc.type,
    label: doc.label,
    message: doc.message,
    ...(doc.requiredWhen ? { requiredWhen: doc.requiredWhen } : {}),
  })),
  serviceability,
});
