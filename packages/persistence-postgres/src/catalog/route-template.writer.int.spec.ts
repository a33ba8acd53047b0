import {
  CreateAuthorizationUseCase,
  evaluateRequirements,
  importFhirQuestionnaire,
  type Answer,
  type QuestionnaireResponseItem,
  type TemplateSelection,
} from '@prior-auth/domain';
import { RandomIdGenerator } from '@prior-auth/platform';
import { NPI } from '@prior-auth/domain/testing';
import type { DataSource } from 'typeorm';
import { startJobBoss } from '../outbox/job-queues';
import { TypeOrmProviderRegistry } from '../tenancy/typeorm-provider-registry';
import { createTestTenant, testCursors } from '../unit-of-work/testing/test-tenants';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';
import { PATIENT_LINK_IDS } from './catalog';
import {
  CatalogImportError,
  importRouteTemplate,
  listCatalogRoutes,
  showCatalogRoute,
} from './route-template.writer';
import { seedCatalog } from './seed-catalog';
import { openCatalogDataSource, withScratchDatabase } from './testing/catalog-test-database';
import { TypeOrmPayerCatalog } from './typeorm-payer-catalog';
import { TypeOrmPortalAccess } from '../portal-access/typeorm-portal-access';

/** A small payer form: a required group, a repeating group, an integer and a display-only option. */
const form = (title = 'Walker order') =>
  importFhirQuestionnaire({
    resourceType: 'Questionnaire',
    id: 'walker-order',
    title,
    item: [
      {
        linkId: 'need',
        type: 'group',
        text: 'Mobility need',
        required: true,
        item: [
          { linkId: 'need.indoors', type: 'boolean', text: 'Needed indoors' },
          { linkId: 'need.outdoors', type: 'boolean', text: 'Needed outdoors' },
        ],
      },
      {
        linkId: 'falls',
        type: 'group',
        repeats: true,
        item: [{ linkId: 'falls.date', type: 'date', text: 'Date of the fall' }],
      },
      { linkId: 'height', type: 'integer', text: 'Height (cm)', required: true },
      {
        linkId: 'kind',
        type: 'choice',
        required: true,
        answerOption: [{ valueCoding: { display: 'Standard' } }, { valueCoding: { display: 'Wheeled' } }],
      },
    ],
  });

const SELECTION: TemplateSelection = {
  payerId: 'payer_uhc',
  insuranceState: 'CA',
  serviceType: 'outpatient',
  serviceCode: 'e0135',
  serviceCodeSystem: 'hcpcs',
};
const str = (valueString: string): Answer => ({ valueString });

describe('importing route templates', () => {
  it('creates a route served by the catalog, versions it, keeps cases pinned and survives seeding', async () => {
    await withScratchDatabase(async (url) => {
      const dataSource: DataSource = await openCatalogDataSource(url, 4);
      const boss = await startJobBoss({ connectionString: url, role: 'producer', poolSize: 1 });
      try {
        await seedCatalog(dataSource);
        const first = await importRouteTemplate(dataSource, {
          templateSelection: SELECTION,
          questionnaire: form(),
          documentRequirements: [],
        });
        expect(first).toMatchObject({ templateVersion: 1, previousVersion: null, patientGroupAdded: true });
        expect(first.route.id).toBe('route_uhc_ca_hcpcs_e0135');

        // Served like any route: the listing behind GET /v1/prior-auth/routes, and the exact lookup.
        const catalog = new TypeOrmPayerCatalog(dataSource);
        const page = await catalog.listRoutes({ payerId: 'payer_uhc', serviceCode: 'E0135', limit: 10 });
        expect(page.items.map((route) => route.id)).toEqual([first.route.id]);
        const questionnaire = page.items[0]!.questionnaire;
        expect(questionnaire.groups[0]!.items.map((item) => item.linkId)).toEqual([...PATIENT_LINK_IDS]);
        expect(questionnaire.version).toBe('1');

        // A case on the imported route reaches requires_confirmation by answering its questions.
        const scope = await createTestTenant(dataSource);
        await dataSource.query('INSERT INTO provider_npis (organization_id, npi) VALUES ($1, $2)', [
          scope.organizationId,
          NPI,
        ]);
        const create = new CreateAuthorizationUseCase({
          unitOfWork: new TypeOrmUnitOfWork(dataSource, {
            cursors: testCursors(),
            jobBoss: boss,
            defaultActor: 'test',
          }),
          clock: { now: () => new Date() },
          ids: new RandomIdGenerator(),
          portalAccess: new TypeOrmPortalAccess(dataSource),
          providerRegistry: new TypeOrmProviderRegistry(dataSource),
          payerCatalog: catalog,
        });
        const answers: QuestionnaireResponseItem[] = [
          { linkId: 'patient.memberId', answer: [str('SBX-APPROVED')] },
          { linkId: 'patient.firstName', answer: [str('Ada')] },
          { linkId: 'patient.lastName', answer: [str('Lovelace')] },
          { linkId: 'patient.birthDate', answer: [{ valueDate: '1950-01-02' }] },
          { linkId: 'need.outdoors', answer: [{ valueBoolean: true }] },
          // One fall per instance of the repeating group (decision 0036).
          { linkId: 'falls.date', instance: 0, answer: [{ valueDate: '2026-01-02' }] },
          { linkId: 'falls.date', instance: 1, answer: [{ valueDate: '2026-03-04' }] },
          { linkId: 'height', answer: [{ valueDecimal: 172 }] },
          { linkId: 'kind', answer: [{ valueCoding: { code: 'Wheeled' } }] },
        ];
        const missingGroup = evaluateRequirements(
          questionnaire,
          [],
          { item: answers.filter((entry) => entry.linkId !== 'need.outdoors') },
          [],
        );
        expect(missingGroup.questions.map((question) => question.linkId)).toEqual(['need']);
        const created = await create.execute(scope, {
          providerNpi: NPI,
          templateSelection: { ...SELECTION, serviceCode: 'E0135' },
          policy: { finalSubmission: 'automatic' },
          questionnaireResponse: { item: answers },
        });
        expect(created.status).toBe('requires_confirmation');

        // Importing again makes version 2; the case keeps the version it was created on.
        const second = await importRouteTemplate(dataSource, {
          templateSelection: SELECTION,
          questionnaire: form('Walker order, revised'),
          documentRequirements: [{ type: 'prescription', label: 'Prescription', message: 'Attach it.' }],
        });
        expect(second).toMatchObject({ templateVersion: 2, previousVersion: '1' });
        const [pinned] = await dataSource.query(
          // The case's questionnaire: its own, or the shared one it points at (decision 0059).
          `SELECT q->>'version' AS version, q->>'title' AS title
             FROM authorizations a LEFT JOIN questionnaire_documents d ON d.id = a.questionnaire_id,
                  LATERAL (SELECT COALESCE(a.questionnaire, d.document) AS q) pinned
            WHERE a.id = $1`,
          [created.id],
        );
        expect(pinned).toEqual({ version: '1', title: 'Walker order' });

        // Concurrent imports take turns: each gets its own version.
        const versions = await Promise.all(
          [1, 2, 3].map(() =>
            importRouteTemplate(dataSource, {
              templateSelection: SELECTION,
              questionnaire: form(),
              documentRequirements: [],
            }).then((result) => result.templateVersion),
          ),
        );
        expect(versions.sort()).toEqual([3, 4, 5]);

        // Seeding neither deletes nor replaces imported routes, including one over a shipped selection.
        const overShipped = await importRouteTemplate(dataSource, {
          templateSelection: { ...SELECTION, serviceCode: 'E1390' },
          questionnaire: form(),
          documentRequirements: [],
        });
        expect(overShipped).toMatchObject({ templateVersion: 1, previousVersion: expect.any(String) });
        const seeded = await seedCatalog(dataSource);
        expect(seeded.skipped).toBe(false);
        const routes = await listCatalogRoutes(dataSource, { payerId: 'payer_uhc' });
        expect(
          routes.filter((route) => route.imported).map((route) => [route.id, route.templateVersion]),
        ).toEqual([
          ['route_uhc_ca_hcpcs_e0135', '5'],
          ['route_uhc_ca_hcpcs_e1390', '1'],
        ]);
        expect((await showCatalogRoute(dataSource, 'route_uhc_ca_hcpcs_e1390')).questionnaire.title).toBe(
          'Walker order',
        );
      } finally {
        await boss.stop({ graceful: false });
        await dataSource.destroy();
      }
    });
  }, 60_000);

  it.each([
    [{ ...SELECTION, payerId: 'payer_nope' }, 'payer_not_found'],
    [{ ...SELECTION, insuranceState: 'ZZ' }, 'payer_does_not_serve'],
    [{ ...SELECTION, insuranceState: 'California' }, 'invalid_selection'],
  ])(
    'refuses %o with %s and changes nothing',
    async (selection, code) => {
      await withScratchDatabase(async (url) => {
        const dataSource = await openCatalogDataSource(url, 2);
        try {
          await seedCatalog(dataSource);
          const before = await listCatalogRoutes(dataSource);
          await expect(
            importRouteTemplate(dataSource, {
              templateSelection: selection,
              questionnaire: form(),
              documentRequirements: [],
            }),
          ).rejects.toMatchObject({ code });
          expect(await listCatalogRoutes(dataSource)).toEqual(before);
        } finally {
          await dataSource.destroy();
        }
      });
    },
    60_000,
  );

  it('refuses a form with only part of the patient group', async () => {
    const partial = form();
    partial.groups[0]!.items.push({
      linkId: 'patient.memberId',
      text: 'Member',
      required: true,
      answerType: 'string',
    });
    const dataSource = await openCatalogDataSource();
    try {
      const error = await importRouteTemplate(dataSource, {
        templateSelection: SELECTION,
        questionnaire: partial,
        documentRequirements: [],
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CatalogImportError);
      expect(error).toMatchObject({ code: 'incomplete_patient_group' });
    } finally {
      await dataSource.destroy();
    }
  });
});
