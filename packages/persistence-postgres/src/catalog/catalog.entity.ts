import type { DocumentRequirement, QuestionnaireTemplate } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/** A row of `payers` (migration 1763740800000). */
export interface PayerRow {
  id: string;
  display_name: string;
  supported_states: string[];
  supported_service_types: string[];
  aliases: string[];
  status: string;
  brand: string | null;
  line_of_business: string | null;
  catalog_version: string;
  /** Lower-case name and aliases (see `payerSearchText`), matched by `q`. */
  search_text: string;
}

/** A row of `routes` (migration 1763740800000). */
export interface RouteRow {
  id: string;
  payer_id: string;
  insurance_state: string;
  service_type: string;
  service_code: string;
  service_code_system: string;
  portal_auth_modes: string[];
  questionnaire: QuestionnaireTemplate;
  document_requirements: DocumentRequirement[];
  catalog_version: string;
}

export const PayerEntity = new EntitySchema<PayerRow>({
  name: 'payer',
  tableName: 'payers',
  columns: {
    id: { type: 'text', primary: true },
    display_name: { type: 'text' },
    supported_states: { type: 'text', array: true },
    supported_service_types: { type: 'text', array: true },
    aliases: { type: 'text', array: true },
    status: { type: 'text' },
    brand: { type: 'text', nullable: true },
    line_of_business: { type: 'text', nullable: true },
    catalog_version: { type: 'text' },
    search_text: { type: 'text' },
  },
});

export const RouteEntity = new EntitySchema<RouteRow>({
  name: 'route',
  tableName: 'routes',
  columns: {
    id: { type: 'text', primary: true },
    payer_id: { type: 'text' },
    insurance_state: { type: 'char', length: 2 },
    service_type: { type: 'text' },
    service_code: { type: 'text' },
    service_code_system: { type: 'text' },
    portal_auth_modes: { type: 'text', array: true },
    questionnaire: { type: 'jsonb' },
    document_requirements: { type: 'jsonb' },
    catalog_version: { type: 'text' },
  },
});

/** The catalog's entity schemas, to be listed in `ENTITY_SCHEMAS`. */
export const CATALOG_ENTITY_SCHEMAS = [PayerEntity, RouteEntity];
