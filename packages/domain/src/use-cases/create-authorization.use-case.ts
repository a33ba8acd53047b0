import { Authorization } from '../authorization/authorization.aggregate';
import {
  type AuthorizationPolicy,
  type PortalAuthMode,
  type TemplateSelection,
} from '../authorization/authorization.types';
import { type DomainPorts } from '../ports';
import { type Route } from '../ports/payer-catalog.port';
import { type PortalAccessFacts } from '../ports/portal-access.port';
import { modeServiceability, UNSERVICEABLE_MESSAGES } from '../portal-access/route-serviceability';
import { applyDefaults } from '../requirements/questionnaire-presenter';
import { type QuestionnaireResponse } from '../requirements/questionnaire.types';
import { DomainError } from '../shared/domain-error';
import { type Environment, type TenantScope } from '../shared/scope';
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
  'unitOfWork' | 'clock' | 'ids' | 'providerRegistry' | 'payerCatalog' | 'portalAccess'
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
    // Decision 0030: a production route is served only through a connected portal the organization can use.
    const facts =
      scope.environment === 'sandbox'
        ? null
        : await this.deps.portalAccess.describe(scope.organizationId, route.templateSelection.payerId);
    const portalAuthMode = choosePortalAuthMode(route, command.portalAuthMode, scope.environment, facts);

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

/**
 * `automated` is the default (spec); a route that cannot automate (the mode is not offered, or the
 * organization has no credentials for the payer's portal) falls back to a mode it can serve.
 */
function choosePortalAuthMode(
  route: Route,
  requested: PortalAuthMode | undefined,
  environment: Environment,
  facts: PortalAccessFacts | null,
): PortalAuthMode {
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
    assertServiceable(environment, requested, facts);
    return requested;
  }
  const offered = route.portalAuthModes.includes('automated')
    ? ['automated' as const, ...route.portalAuthModes.filter((mode) => mode !== 'automated')]
    : route.portalAuthModes;
  if (offered[0] === undefined) throw new Error(`Route ${route.id} declares no portal auth mode.`);
  const serviceable = offered.find((mode) => modeServiceability(environment, mode, facts).serviceable);
  if (serviceable !== undefined) return serviceable;
  assertServiceable(environment, offered[0], facts);
  return offered[0];
}

function assertServiceable(
  environment: Environment,
  mode: PortalAuthMode,
  facts: PortalAccessFacts | null,
): void {
  const verdict = modeServiceability(environment, mode, facts);
  if (verdict.serviceable) return;
  throw new DomainError(
    'unsupported_template_selection',
    `No serviceable route matches the template selection: ${UNSERVICEABLE_MESSAGES[verdict.reason]}`,
    { reason: verdict.reason, portalAuthMode: mode },
  );
}
