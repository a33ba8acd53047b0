import {
  type Payer,
  type PortalAuthMode,
  type TemplateSelection,
} from '../authorization/authorization.types';
import { type DocumentRequirement, type QuestionnaireTemplate } from '../requirements/questionnaire.types';
import { type Environment } from '../shared/scope';

/** A serviceable route: it pins the questionnaire and the document requirements (decision 0025). */
export interface Route {
  id: string;
  templateSelection: TemplateSelection;
  portalAuthModes: PortalAuthMode[];
  questionnaire: QuestionnaireTemplate;
  documentRequirements: DocumentRequirement[];
}

export interface PayerCatalog {
  getPayer(payerId: string): Promise<Payer | null>;
  /** The route serving exactly this selection in this environment, or null. */
  findRoute(selection: TemplateSelection, environment: Environment): Promise<Route | null>;
}
