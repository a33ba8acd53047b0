import type { Resource } from '../http/route-table';
import { ref } from '../openapi/openapi.components';
import { jsonResponse, TAGS } from '../openapi/openapi.operations';
import type { SandboxController } from '../sandbox/sandbox.controller';
import type { CatalogController } from './catalog.controller';
import { ListPayersQuery, ListRoutesQuery } from './catalog.request';

/** The controllers behind the catalog paths. */
export interface CatalogControllers {
  catalog: CatalogController;
  sandbox: SandboxController;
}

/** The payer catalog, its serviceable routes and the sandbox's scenarios, served on the `/v1` router. */
export const CATALOG_RESOURCE: Resource<CatalogControllers> = {
  mounts: [{ path: '/v1', tag: TAGS.catalog, operationIdSuffix: '' }],
  routes: {
    '/payers': {
      get: {
        serve: (c, req, res) => c.catalog.listPayers(req, res),
        openapi: {
          operationId: 'listPayers',
          summary: 'List payers',
          query: ListPayersQuery,
          responses: { 200: jsonResponse('A page of payers.', ref('PayerList')) },
          errors: ['request_validation_failed'],
        },
      },
    },
    '/payers/:payerId': {
      get: {
        serve: (c, req, res) => c.catalog.getPayer(req, res),
        openapi: {
          operationId: 'getPayer',
          summary: 'Retrieve a payer',
          responses: { 200: jsonResponse('The payer.', ref('Payer')) },
          errors: ['payer_not_found'],
        },
      },
    },
    '/prior-auth/routes': {
      get: {
        serve: (c, req, res) => c.catalog.listRoutes(req, res),
        openapi: {
          operationId: 'listRoutes',
          summary: 'List serviceable routes',
          description:
            'Each route pins a questionnaire and document requirements; create an authorization with its ' +
            '`templateSelection`. Every questionnaire has a patient group with patient.memberId, ' +
            'patient.firstName, patient.lastName and patient.birthDate.',
          query: ListRoutesQuery,
          responses: { 200: jsonResponse('A page of routes.', ref('RouteList')) },
          errors: ['request_validation_failed', 'template_invalid'],
        },
      },
    },
    '/sandbox/scenarios': {
      get: {
        serve: (c, req, res) => c.sandbox.listScenarios(req, res),
        openapi: {
          operationId: 'listSandboxScenarios',
          summary: "List the simulated payer's scenarios (sandbox keys only)",
          description:
            'In the sandbox no real payer is contacted; the answer to `patient.memberId` picks the outcome. ' +
            'Any member ID not listed is approved. A production key gets 404 not_found.',
          responses: { 200: jsonResponse('The scenarios.', ref('SandboxScenarioList')) },
          errors: ['not_found'],
        },
      },
    },
  },
};
