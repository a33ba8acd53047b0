import { Authorization } from '../authorization/authorization.aggregate';
import {
  type AuthorizationPolicy,
  type PortalAuthMode,
  type TemplateSelection,
} from '../authorization/authorization.types';
import { type DomainPorts } from '../ports';
import { type Route } from '../ports/payer-catalog.port';
import { applyDefaults } from '../requirements/questionnaire-presenter';
import { type QuestionnaireResponse } from '../requirements/questionnaire.types';
import { DomainError } from '../shared/domain-error';
import { type TenantScope } from '../shared/scope';
import { saveAuthorization } from './support/aggregate-persistence.helper';
import { authorizationContext } from './support/authorization-context.factory';

export interface CreateAuthorizationCommand {
  providerNpi: string;
  templateSelection: TemplateSelection;
  policy: AuthorizationPolicy;
  portalAuthMode?: PortalAuthMode;
  questionnaireResponse?: QuestionnaireResponse;
}

export type CreateAuthorizationDeps = Pick<
  DomainPorts,
  'unitOfWork' | 'clock' | 'ids' | 'providerRegistry' | 'payerCatalog'
>;

/** Opens a case on a serviceable route. Submits nothing and enqueues nothing: that waits for a confirm. */
export class CreateAuthorizationUseCase {
  constructor(private readonly deps: CreateAuthorizationDeps) {}

  async execute(scope: TenantScope, command: CreateAuthorizationCommand): Promise<Authorization> {
    if (!(await this.deps.providerRegistry.isRegistered(scope, command.providerNpi))) {
      throw new DomainError('provider_not_found', 'The provider NPI is not registered to the organization.');
    }
    const payer = await this.deps.payerCatalog.getPayer(command.templateSelection.payerId);
    if (payer === null) {
      throw new DomainError('payer_not_found', 'The payer is not in the catalog.', {
        payerId: command.templateSelection.payerId,
      });
    }
    const route = await this.deps.payerCatalog.findRoute(command.templateSelection, scope.environment);
    if (route === null) {
      throw new DomainError(
        'unsupported_template_selection',
        'No serviceable route matches the template selection.',
      );
    }
    const portalAuthMode = choosePortalAuthMode(route, command.portalAuthMode);

    const authorization = Authorization.create(
      {
        organizationId: scope.organizationId,
        environment: scope.environment,
        policy: command.policy,
        providerNpi: command.providerNpi,
        payer,
        templateSelection: route.templateSelection,
        routeId: route.id,
        portalAuthMode,
        questionnaire: route.questionnaire,
        documentRequirements: route.documentRequirements,
        questionnaireResponse: applyDefaults(
          route.questionnaire,
          command.questionnaireResponse ?? { item: [] },
        ),
      },
      authorizationContext(this.deps),
    );
    await this.deps.unitOfWork.run(scope, (tx) => saveAuthorization(tx, this.deps.ids, authorization));
    return authorization;
  }
}

/** `automated` is the default (spec); a route that cannot automate falls back to the mode it does support. */
function choosePortalAuthMode(route: Route, requested: PortalAuthMode | undefined): PortalAuthMode {
  if (requested !== undefined) {
    if (!route.portalAuthModes.includes(requested)) {
      throw new DomainError(
        'portal_auth_mode_unsupported',
        'The route does not support this portal auth mode.',
        {
          portalAuthMode: requested,
          supported: [...route.portalAuthModes],
        },
      );
    }
    return requested;
  }
  const fallback = route.portalAuthModes.includes('automated') ? 'automated' : route.portalAuthModes[0];
  if (fallback === undefined) throw new Error(`Route ${route.id} declares no portal auth mode.`);
  return fallback;
}
