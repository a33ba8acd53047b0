import { importedFormRoute, type ImportedFormRoute } from './support/imported-form-route';

/**
 * Answers tied to their repeating-group instance (docs/decisions/0036), sent through the API to a route
 * imported from a FHIR Questionnaire with a repeating group and a required group.
 */
const SELECTION = {
  payerId: 'payer_uhc',
  insuranceState: 'CA',
  serviceType: 'outpatient',
  serviceCode: 'K9998',
  serviceCodeSystem: 'hcpcs',
} as const;

const FORM = {
  resourceType: 'Questionnaire',
  id: 'repeating-devices',
  status: 'active',
  title: 'Devices in use',
  item: [
    {
      linkId: 'history',
      text: 'Prior treatment (at least one)',
      type: 'group',
      required: true,
      item: [
        { linkId: 'history.therapy', text: 'Therapy tried', type: 'string' },
        { linkId: 'history.medication', text: 'Medication tried', type: 'string' },
      ],
    },
    {
      linkId: 'devices',
      text: 'Devices',
      type: 'group',
      repeats: true,
      item: [
        { linkId: 'devices.note', text: 'One entry per device in use', type: 'display' },
        { linkId: 'devices.name', text: 'Device name', type: 'string', required: true, maxLength: 10 },
        {
          linkId: 'devices.kind',
          text: 'Kind',
          type: 'choice',
          answerOption: [{ valueCoding: { code: 'pump' } }, { valueCoding: { code: 'meter' } }],
        },
        {
          linkId: 'devices.count',
          text: 'Pumps in use',
          type: 'integer',
          required: true,
          enableWhen: [{ question: 'devices.kind', operator: '=', answerCoding: { code: 'pump' } }],
        },
      ],
    },
  ],
};

const at = (linkId: string, instance: number, answer: unknown) => ({ linkId, instance, answer: [answer] });

const TWO_DEVICES = [
  at('devices.name', 0, { valueString: 'Pump A' }),
  at('devices.kind', 0, { valueCoding: { code: 'pump' } }),
  at('devices.count', 0, { valueInteger: 2 }),
  at('devices.name', 1, { valueString: 'Meter B' }),
  at('devices.kind', 1, { valueCoding: { code: 'meter' } }),
];

type Entry = { linkId: string; instance?: number; code?: string; field?: string };
const where = (entries: Entry[]) =>
  entries.map((entry) => `${entry.linkId ?? entry.field}@${String(entry.instance)}`).sort();

describe('answers of a repeating group, per instance', () => {
  let route: ImportedFormRoute;
  beforeAll(async () => {
    route = await importedFormRoute(FORM, SELECTION);
  });
  afterAll(() => route.close());

  const create = (answers: unknown[]) => route.create(answers);
  const patch = (id: string, version: number, items: unknown[]) =>
    route.api.patch(id, `"${version}"`, { questionnaireResponse: { item: items } });

  it('names the repeating group on the route’s items inside it and keeps its display text', async () => {
    const questionnaire = await route.routeQuestionnaire();
    const items = questionnaire.flatMap((group) => group.items);
    const byLinkId = new Map(items.map((item) => [item.linkId, item]));
    expect(byLinkId.get('devices.name')).toEqual(
      expect.objectContaining({ repeatingGroup: { linkId: 'devices', text: 'Devices' } }),
    );
    expect(byLinkId.get('devices.name')).not.toHaveProperty('repeats');
    expect(byLinkId.get('history.therapy')).not.toHaveProperty('repeatingGroup');
    const devices = questionnaire.find((group) => group.id === 'devices');
    expect(devices?.displays).toEqual([
      { linkId: 'devices.note', text: 'One entry per device in use', position: 0 },
    ]);
  });

  it('reaches requires_confirmation by answering two instances and the required group; a patch of one instance keeps the other', async () => {
    const created = await create([]).expect(201);
    expect(created.body.status).toBe('requires_input');
    expect(where(created.body.requirements.questions)).toEqual(['devices.name@0', 'history@undefined']);

    const answered = await patch(created.body.id, 1, [
      ...TWO_DEVICES,
      { linkId: 'history.therapy', answer: [{ valueString: 'CPAP' }] },
    ]).expect(200);
    expect(answered.body.requirements).toEqual(
      expect.objectContaining({ questions: [], documents: [], issues: [] }),
    );
    expect(answered.body.status).toBe('requires_confirmation');
    expect(answered.body.questionnaireResponse.item).toEqual(expect.arrayContaining(TWO_DEVICES));

    const renamed = await patch(created.body.id, 2, [
      at('devices.name', 1, { valueString: 'Meter C' }),
    ]).expect(200);
    expect(renamed.body.status).toBe('requires_confirmation');

    const read = await route.api.get(created.body.id).expect(200);
    const names = read.body.questionnaireResponse.item.filter(
      (item: Entry) => item.linkId === 'devices.name',
    );
    expect(names).toEqual([
      at('devices.name', 0, { valueString: 'Pump A' }),
      at('devices.name', 1, { valueString: 'Meter C' }),
    ]);
    expect(read.body.questionnaireResponse.item).toEqual(
      expect.arrayContaining([at('devices.count', 0, { valueInteger: 2 })]),
    );
  });

  it('asks and validates each instance on its own answers', async () => {
    const created = await create([
      { linkId: 'history.medication', answer: [{ valueString: 'none' }] },
      at('devices.name', 0, { valueString: 'A name far too long' }),
      at('devices.kind', 0, { valueCoding: { code: 'meter' } }),
      at('devices.count', 0, { valueInteger: 1 }),
      at('devices.kind', 1, { valueCoding: { code: 'pump' } }),
      { linkId: 'history.therapy', instance: 0, answer: [{ valueString: 'CPAP' }] },
    ]).expect(201);
    expect(created.body.status).toBe('requires_input');
    const { questions, issues } = created.body.requirements;
    expect(where(questions)).toEqual(['devices.count@1', 'devices.name@1']);
    expect(
      issues.map((issue: Entry) => `${issue.field}@${String(issue.instance)}:${issue.code}`).sort(),
    ).toEqual([
      'devices.count@0:answer_not_allowed',
      'devices.name@0:max_length_exceeded',
      'history.therapy@undefined:instance_not_allowed',
    ]);
  });

  it.each([[-1], [100], [1.5], ['1']])('refuses instance %p with 422 at the field', async (instance) => {
    const res = await create([{ linkId: 'devices.name', instance, answer: [{ valueString: 'x' }] }]).expect(
      422,
    );
    expect(res.body.error.issues).toEqual([
      expect.objectContaining({ location: ['body', 'questionnaireResponse', 'item', '4', 'instance'] }),
    ]);
  });
});
