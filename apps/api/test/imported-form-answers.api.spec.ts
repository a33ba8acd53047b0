import { importedFormRoute, type ImportedFormRoute } from './support/imported-form-route';

/**
 * Answers of the value types a FHIR form can ask for beyond the five basic ones (docs/decisions/0018), sent
 * through the API to a route imported from a FHIR Questionnaire.
 */
const SELECTION = {
  payerId: 'payer_uhc',
  insuranceState: 'CA',
  serviceType: 'outpatient',
  serviceCode: 'K9999',
  serviceCodeSystem: 'hcpcs',
} as const;

const FORM = {
  resourceType: 'Questionnaire',
  id: 'value-types',
  status: 'active',
  title: 'Value types',
  item: [
    { linkId: 'visits', text: 'Visits in the last year', type: 'integer', required: true },
    {
      linkId: 'weight',
      text: 'Weight',
      type: 'quantity',
      required: true,
      extension: [
        {
          url: 'http://hl7.org/fhir/StructureDefinition/questionnaire-unitOption',
          valueCoding: { system: 'http://unitsofmeasure.org', code: 'kg', display: 'kg' },
        },
      ],
    },
    { linkId: 'seenAt', text: 'Time seen', type: 'time', required: true },
    { linkId: 'orderedAt', text: 'Ordered at', type: 'dateTime', required: true },
  ],
};

const GOOD_ANSWERS = [
  { linkId: 'visits', answer: [{ valueInteger: 3 }] },
  {
    linkId: 'weight',
    answer: [{ valueQuantity: { value: 81.5, unit: 'kg', system: 'http://unitsofmeasure.org' } }],
  },
  { linkId: 'seenAt', answer: [{ valueTime: '09:30' }] },
  { linkId: 'orderedAt', answer: [{ valueDateTime: '2026-01-15T09:30:00Z' }] },
];

describe('answers of imported FHIR value types', () => {
  let route: ImportedFormRoute;
  beforeAll(async () => {
    route = await importedFormRoute(FORM, SELECTION);
  });
  afterAll(() => route.close());

  const create = (answers: unknown[]) => route.create(answers);

  it('describes the value types, units and bounds of the route’s items', async () => {
    const questionnaire = await route.routeQuestionnaire();
    const items = questionnaire.flatMap((group) => group.items);
    expect(items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ linkId: 'visits', answerType: 'decimal', valueType: 'integer' }),
        expect.objectContaining({
          linkId: 'weight',
          valueType: 'quantity',
          units: [expect.objectContaining({ code: 'kg' })],
        }),
        expect.objectContaining({ linkId: 'seenAt', answerType: 'string', valueType: 'time' }),
        expect.objectContaining({ linkId: 'orderedAt', answerType: 'date', valueType: 'dateTime' }),
      ]),
    );
  });

  it('takes valueInteger, valueQuantity, valueTime and valueDateTime answers and echoes them', async () => {
    const res = await create(GOOD_ANSWERS).expect(201);
    expect(res.body.status).toBe('requires_confirmation');
    expect(res.body.questionnaireResponse.item).toEqual(expect.arrayContaining(GOOD_ANSWERS));
  });

  it('reports a wrong unit and a fraction for a whole number as requirement issues, not 422s', async () => {
    const res = await create([
      { linkId: 'visits', answer: [{ valueDecimal: 2.5 }] },
      { linkId: 'weight', answer: [{ valueQuantity: { value: 180, unit: 'lb' } }] },
      ...GOOD_ANSWERS.slice(2),
    ]).expect(201);
    expect(res.body.status).toBe('requires_input');
    expect(res.body.requirements.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'visits', severity: 'error' }),
        expect.objectContaining({ field: 'weight', code: 'unit_not_allowed', severity: 'error' }),
      ]),
    );
  });

  it('refuses a non-integer valueInteger and a quantity without a number with 422 at the field', async () => {
    const res = await create([
      { linkId: 'visits', answer: [{ valueInteger: 2.5 }] },
      { linkId: 'weight', answer: [{ valueQuantity: { unit: 'kg' } }] },
    ]).expect(422);
    const locations = res.body.error.issues.map((issue: { location: string[] }) => issue.location.join('.'));
    expect(locations).toEqual(
      expect.arrayContaining([
        'body.questionnaireResponse.item.4.answer.0.valueInteger',
        'body.questionnaireResponse.item.5.answer.0.valueQuantity.value',
      ]),
    );
  });

  it('refuses two value fields in one answer', async () => {
    const res = await create([
      { linkId: 'visits', answer: [{ valueInteger: 2, valueTime: '09:30' }] },
    ]).expect(422);
    expect(res.body.error.issues).toEqual([
      expect.objectContaining({ location: ['body', 'questionnaireResponse', 'item', '4', 'answer', '0'] }),
    ]);
  });
});
