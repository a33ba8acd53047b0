import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  listCatalogRoutes,
  openTestDataSource,
  seedCatalog,
  TypeOrmOrganizationDirectory,
} from '@prior-auth/persistence-postgres';
import { buildCli } from '../src/cli';

type DataSource = Awaited<ReturnType<typeof openTestDataSource>>;

const FIXTURES = path.resolve(__dirname, '../../../../shared/fixtures/fhir-questionnaires');
const describeWithFixtures = fs.existsSync(FIXTURES) ? describe : describe.skip;

let dataSource: DataSource;
let scratch: string;
beforeAll(async () => {
  dataSource = await openTestDataSource(2);
  await seedCatalog(dataSource);
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-import-'));
});
afterAll(async () => {
  fs.rmSync(scratch, { recursive: true, force: true });
  await dataSource.destroy();
});

interface Run {
  out: string;
  err: string;
  error: Error | undefined;
}

async function run(...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const directory = new TypeOrmOrganizationDirectory(dataSource);
  let error: Error | undefined;
  try {
    await buildCli(
      async () => directory,
      { out: (s) => out.push(s), err: (s) => err.push(s) },
      async () => dataSource,
    ).parseAsync(args, { from: 'user' });
  } catch (caught) {
    error = caught as Error;
  }
  return { out: out.join('\n'), err: err.join('\n'), error };
}

function writeForm(name: string, content: unknown): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const selection = (serviceCode: string) => [
  '--payer',
  'payer_uhc',
  '--state',
  'CA',
  '--service-type',
  'outpatient',
  '--service-code-system',
  'hcpcs',
  '--service-code',
  serviceCode,
];

const snapshot = async () => JSON.stringify(await listCatalogRoutes(dataSource));

describe('admin catalog import', () => {
  const small = {
    resourceType: 'Questionnaire',
    id: 'small',
    title: 'Small form',
    item: [
      { linkId: 'a', type: 'integer', text: 'How many', required: true },
      { linkId: 'b', type: 'string', enableWhen: [{ question: 'a', operator: '>', answerInteger: 1 }] },
    ],
  };

  it('imports a form, prints what it imported, then versions the route on a second import', async () => {
    const file = writeForm('small.json', small);
    const first = await run(
      'catalog',
      'import',
      file,
      ...selection('A4000'),
      '--documents',
      'prescription:Prescription',
    );
    expect(first.error).toBeUndefined();
    expect(first.out).toContain(
      'imported "Small form" (Questionnaire small) as template version 1 of route route_uhc_ca_hcpcs_a4000',
    );
    expect(first.out).toContain('new route');
    expect(first.out).toContain('documents: prescription (Prescription)');
    expect(first.out).toContain(
      'the patient group (patient.memberId, patient.firstName, patient.lastName, patient.birthDate) was added',
    );

    const second = await run('catalog', 'import', file, ...selection('a4000'), '--json');
    expect(JSON.parse(second.out)).toMatchObject({
      routeId: 'route_uhc_ca_hcpcs_a4000',
      templateVersion: 2,
      previousVersion: '1',
    });

    const list = await run('catalog', 'list', '--payer', 'payer_uhc');
    expect(list.out).toMatch(
      /route_uhc_ca_hcpcs_a4000\tpayer_uhc CA outpatient hcpcs A4000\tsmall v2\timported/,
    );
    const show = await run('catalog', 'show', 'route_uhc_ca_hcpcs_a4000');
    expect(show.out).toContain('a (integer, required): How many');
    expect(show.out).toContain('b (string): b');
  });

  it('shows a repeating group whose answers carry their instance, and display texts in place', async () => {
    const file = writeForm('devices.json', {
      resourceType: 'Questionnaire',
      id: 'devices',
      title: 'Devices',
      item: [
        {
          linkId: 'devices',
          type: 'group',
          text: 'Devices',
          repeats: true,
          item: [
            { linkId: 'devices.note', type: 'display', text: 'One entry per device' },
            { linkId: 'devices.name', type: 'string', text: 'Name', required: true },
          ],
        },
      ],
    });
    const imported = await run('catalog', 'import', file, ...selection('A4010'));
    expect(imported.error).toBeUndefined();
    expect(imported.out).toContain('1 repeating FHIR groups, 1 display texts');
    expect(imported.err).not.toMatch(/repeating_group_flattened/);
    const show = await run('catalog', 'show', 'route_uhc_ca_hcpcs_a4010');
    expect(show.out).toMatch(
      /devices\.note \(text\): One entry per device\n\s+devices\.name \(string, required\): Name/,
    );
    expect(show.out).toContain('group devices: repeats (answers carry their instance) (devices.name)');
  });

  it.each([
    ['not JSON', '{"resourceType": ', /is not JSON/],
    ['not a Questionnaire', { resourceType: 'Patient' }, /expected a FHIR R4 Questionnaire resource/],
    [
      'an R5 Questionnaire',
      { resourceType: 'Questionnaire', item: [{ linkId: 'a', type: 'coding' }] },
      /FHIR R5 Questionnaire .*only R4 is imported/,
    ],
    [
      'a cycle',
      {
        resourceType: 'Questionnaire',
        item: [
          {
            linkId: 'x',
            type: 'boolean',
            enableWhen: [{ question: 'y', operator: 'exists', answerBoolean: true }],
          },
          {
            linkId: 'y',
            type: 'boolean',
            enableWhen: [{ question: 'x', operator: 'exists', answerBoolean: true }],
          },
        ],
      },
      /"x": notAllowedWhen conditions form a cycle: x -> y -> x \[condition_cycle\]/,
    ],
    [
      'a dangling enableWhen',
      {
        resourceType: 'Questionnaire',
        item: [
          {
            linkId: 'g',
            type: 'group',
            item: [
              {
                linkId: 'q',
                type: 'string',
                enableWhen: [{ question: 'gone', operator: '=', answerString: 'x' }],
              },
            ],
          },
        ],
      },
      /"g" > "q": condition references unknown linkId "gone" \[unknown_link_id\]/,
    ],
    [
      'an unsupported operator',
      {
        resourceType: 'Questionnaire',
        item: [
          { linkId: 'a', type: 'string' },
          {
            linkId: 'b',
            type: 'string',
            enableWhen: [{ question: 'a', operator: 'like', answerString: 'x' }],
          },
        ],
      },
      /"b": enableWhen on "a" has unknown operator "like" \[invalid_condition\]/,
    ],
    ['an empty form', { resourceType: 'Questionnaire', item: [] }, /the form has no question to answer/],
  ])('refuses %s with a clear error and changes nothing', async (_label, content, message) => {
    const before = await snapshot();
    const result = await run('catalog', 'import', writeForm('bad.json', content), ...selection('A4001'));
    expect(result.error?.message).toMatch(message);
    expect(result.error?.message).toMatch(/nothing was changed|is not JSON/);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a bad --documents value before touching anything', async () => {
    const result = await run(
      'catalog',
      'import',
      writeForm('ok.json', small),
      ...selection('A4002'),
      '--documents',
      'Bad Type',
    );
    expect(result.error?.message).toMatch(/is not type:label/);
    const unquoted = await run(
      'catalog',
      'import',
      writeForm('ok.json', small),
      ...selection('A4002'),
      '--documents',
      'prescription:Signed',
      'prescription',
    );
    expect(unquoted.error?.message).toMatch(/too many arguments/);
  });
});

describeWithFixtures('admin catalog import of the real FHIR forms', () => {
  it.each([
    ['cds-library-Questionnaire-R4-HomeOxygenTherapy.json', 'E1391', /sub_questionnaire_dropped/],
    ['cds-library-Questionnaire-R4-HomeBloodGlucoseMonitorOrder.json', 'E2100', /expression_dropped/],
    ['cds-library-Questionnaire-R4-LowerLimbProsthesis.json', 'L5301', /display_item_required/],
    ['lforms-enableWhen-test.R4.json', 'A9999', /enableWhenExpression|expression_dropped/],
  ])('imports %s with its warnings', async (file, code, warning) => {
    const result = await run('catalog', 'import', path.join(FIXTURES, file), ...selection(code));
    expect(result.error).toBeUndefined();
    expect(result.out).toContain(`template version 1 of route route_uhc_ca_hcpcs_${code.toLowerCase()}`);
    expect(result.err).toMatch(warning);
    expect(result.err).toMatch(/warning\(s\): approximations of the form/);
  });

  it.each([
    ['lforms-q-enableWhen-with-reference-loop.json', /condition_cycle/],
    [
      'lforms-questionnaire-enableWhen-missing-linkId.json',
      /"q3": condition references unknown linkId "q11"/,
    ],
  ])('refuses %s and changes nothing', async (file, message) => {
    const before = await snapshot();
    const result = await run('catalog', 'import', path.join(FIXTURES, file), ...selection('A9998'));
    expect(result.error?.message).toMatch(message);
    expect(await snapshot()).toEqual(before);
  });
});
