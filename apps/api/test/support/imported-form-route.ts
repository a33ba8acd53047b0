import { importFhirQuestionnaireWithWarnings, type TemplateSelection } from '@prior-auth/domain';
import { importRouteTemplate } from '@prior-auth/persistence-postgres';
import request from 'supertest';
import { client, type Client } from '../authorization-helpers';
import { createTestApp, type TestApp, type TestTenant } from '../test-app';

/** The route a test imports its FHIR form to: a sandbox payer's CA outpatient service under its own code. */
export type ImportedFormSelection = TemplateSelection;

/** A question group of a route as `GET /v1/prior-auth/routes` lists it. */
export type RouteGroup = {
  id: string;
  items: Array<Record<string, unknown> & { linkId: string }>;
  displays?: unknown[];
};

/** The patient answers every imported form gets (the importer adds the patient group). */
export const PATIENT_ANSWERS = [
  { linkId: 'patient.memberId', answer: [{ valueString: 'M123456789' }] },
  { linkId: 'patient.firstName', answer: [{ valueString: 'Ada' }] },
  { linkId: 'patient.lastName', answer: [{ valueString: 'Lovelace' }] },
  { linkId: 'patient.birthDate', answer: [{ valueDate: '1980-12-10' }] },
];

export interface ImportedFormRoute {
  readonly t: TestApp;
  readonly tenant: TestTenant;
  readonly api: Client;
  /** Creates a case on the route with the patient answers plus `answers`. */
  create(answers: unknown[]): ReturnType<Client['create']>;
  /** The route's question groups, as `GET /v1/prior-auth/routes` lists them. */
  routeQuestionnaire(): Promise<RouteGroup[]>;
  close(): Promise<void>;
}

/** A test app with a tenant and a route imported from `form` (a FHIR R4 Questionnaire). */
export async function importedFormRoute(
  form: unknown,
  selection: ImportedFormSelection,
): Promise<ImportedFormRoute> {
  const t = await createTestApp();
  const tenant = await t.createTenant();
  const api = client(t.app, tenant.keys.sandbox);
  const { template } = importFhirQuestionnaireWithWarnings(form);
  await importRouteTemplate(t.dataSource, {
    templateSelection: selection,
    questionnaire: template,
    documentRequirements: [],
  });
  return {
    t,
    tenant,
    api,
    create: (answers) =>
      api.create({
        providerNpi: tenant.npi,
        templateSelection: selection,
        policy: { finalSubmission: 'automatic' },
        questionnaireResponse: { item: [...PATIENT_ANSWERS, ...answers] },
      }),
    async routeQuestionnaire() {
      const { payerId, insuranceState, serviceCode } = selection;
      const res = await request(t.app)
        .get('/v1/prior-auth/routes')
        .query({ payerId, insuranceState, serviceCode })
        .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
        .expect(200);
      return res.body.data[0].questionnaire;
    },
    close: () => t.close(),
  };
}
