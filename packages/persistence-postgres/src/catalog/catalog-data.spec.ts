import * as domain from '@prior-auth/domain';
import type {
  Answer,
  Condition,
  DocumentRequirement,
  QuestionnaireItemTemplate,
  QuestionnaireTemplate,
} from '@prior-auth/domain';
import {
  buildCatalog,
  CATALOG_VERSION,
  ICD10_PATTERN,
  normalizeServiceCode,
  PATIENT_LINK_IDS,
  payerSearchTerms,
  payerSearchText,
  routeIdFor,
} from './catalog';

const catalog = buildCatalog();

/** The distinct templates (with their document requirements) the routes pin. */
const templates = [
  ...new Map(
    catalog.routes.map((route) => [
      route.questionnaire.id,
      { questionnaire: route.questionnaire, documents: route.documentRequirements },
    ]),
  ).values(),
];

const itemsOf = (template: QuestionnaireTemplate): QuestionnaireItemTemplate[] =>
  template.groups.flatMap((group) => group.items);

type Leaf = { linkId: string; operator: string; answer?: Answer; exists?: boolean };
function leaves(condition: Condition): Leaf[] {
  if ('all' in condition) return condition.all.flatMap(leaves);
  if ('any' in condition) return condition.any.flatMap(leaves);
  if ('not' in condition) return leaves(condition.not);
  return [condition as Leaf];
}

const conditionsOf = (item: QuestionnaireItemTemplate): Condition[] => [
  ...(item.requiredWhen ? [item.requiredWhen] : []),
  ...(item.notAllowedWhen ? [item.notAllowedWhen] : []),
  ...(item.valuesWhen?.cases.map((entry) => entry.when) ?? []),
  ...(item.textWhen?.cases.map((entry) => entry.when) ?? []),
];

const KIND_FIELD: Record<QuestionnaireItemTemplate['answerType'], keyof Answer> = {
  string: 'valueString',
  date: 'valueDate',
  boolean: 'valueBoolean',
  decimal: 'valueDecimal',
  coding: 'valueCoding',
};

describe('catalog payers', () => {
  const byId = new Map(catalog.payers.map((payer) => [payer.id, payer]));

  it('ships the major US payers, all active, with aliases', () => {
    for (const id of [
      'payer_uhc',
      'payer_aetna',
      'payer_cigna',
      'payer_humana',
      'payer_anthem',
      'payer_anthem_ca',
      'payer_kaiser',
      'payer_bsca',
      'payer_ambetter',
      'payer_molina',
    ]) {
      const payer = byId.get(id);
      expect(payer).toBeDefined();
      expect(payer!.status).toBe('active');
      expect(payer!.aliases.length).toBeGreaterThan(0);
      expect(payer!.supportedStates.length).toBeGreaterThan(0);
      for (const state of payer!.supportedStates) expect(state).toMatch(/^[A-Z]{2}$/);
    }
    expect(byId.get('payer_uhc')!.aliases).toEqual(expect.arrayContaining(['UHC', 'United Healthcare']));
    expect(byId.get('payer_anthem')!.brand).toBe('Elevance Health');
    expect(byId.get('payer_kaiser')!.supportedStates).toEqual([
      'CA',
      'CO',
      'DC',
      'GA',
      'HI',
      'MD',
      'OR',
      'VA',
      'WA',
    ]);
    expect(byId.get('payer_bsca')!.supportedStates).toEqual(['CA']);
    expect(new Set(catalog.payers.map((payer) => payer.id)).size).toBe(catalog.payers.length);
  });

  it('builds search text that finds names and aliases with or without spaces', () => {
    const uhc = payerSearchText(byId.get('payer_uhc')!);
    expect(uhc).toContain('unitedhealthcare');
    expect(uhc).toContain('uhc');
    expect(uhc).toContain('united health care');
    expect(uhc).toBe(uhc.toLowerCase());
    expect(payerSearchTerms('  United  Health-Care ')).toEqual(['united health-care', 'unitedhealthcare']);
    expect(payerSearchTerms('%')).toEqual(['%']);
    expect(payerSearchTerms('   ')).toEqual([]);
  });
});

describe('catalog routes', () => {
  it('has one route per payer × supported state × service of a supported type, with deterministic ids', () => {
    const payers = new Map(catalog.payers.map((payer) => [payer.id, payer]));
    const ids = new Set<string>();
    const keys = new Set<string>();
    for (const route of catalog.routes) {
      const selection = route.templateSelection;
      const payer = payers.get(selection.payerId)!;
      expect(payer.supportedStates).toContain(selection.insuranceState);
      expect(payer.supportedServiceTypes).toContain(selection.serviceType);
      expect(route.id).toBe(routeIdFor(selection));
      expect(route.id).toMatch(/^route_[a-z0-9_]+$/);
      expect(selection.serviceCode).toBe(
        normalizeServiceCode(selection.serviceCodeSystem, selection.serviceCode),
      );
      expect(route.portalAuthModes.length).toBeGreaterThan(0);
      ids.add(route.id);
      keys.add(
        [
          selection.payerId,
          selection.insuranceState,
          selection.serviceType,
          selection.serviceCodeSystem,
          selection.serviceCode,
        ].join('|'),
      );
    }
    expect(ids.size).toBe(catalog.routes.length);
    expect(keys.size).toBe(catalog.routes.length);
    for (const payer of catalog.payers) {
      const services = catalog.routes.filter((route) => route.templateSelection.payerId === payer.id);
      const servicesPerState = services.length / payer.supportedStates.length;
      expect(Number.isInteger(servicesPerState) && servicesPerState > 0).toBe(true);
    }
    expect(
      routeIdFor({
        payerId: 'payer_uhc',
        insuranceState: 'CA',
        serviceCodeSystem: 'hcpcs',
        serviceCode: 'E0601',
      }),
    ).toBe('route_uhc_ca_hcpcs_e0601');
  });

  it('offers no drug routes for a payer without drug benefits, and drug routes use NDC', () => {
    expect(
      catalog.routes.some(
        (route) =>
          route.templateSelection.payerId === 'payer_molina' &&
          route.templateSelection.serviceType === 'drug',
      ),
    ).toBe(false);
    const drug = catalog.routes.filter((route) => route.templateSelection.serviceType === 'drug');
    expect(drug.length).toBeGreaterThan(0);
    for (const route of drug)
      expect(route.templateSelection).toMatchObject({ serviceCodeSystem: 'ndc', serviceCode: '00074055402' });
  });

  it('normalizes service codes', () => {
    expect(normalizeServiceCode('hcpcs', ' e0601 ')).toBe('E0601');
    expect(normalizeServiceCode('ndc', '00074-0554-02')).toBe('00074055402');
    expect(normalizeServiceCode('ndc', '0074-0554-02')).toBe('00074055402');
    expect(normalizeServiceCode('ndc', '12345-678-90')).toBe('12345067890');
    expect(normalizeServiceCode('ndc', '12345-6789-1')).toBe('12345678901');
    expect(normalizeServiceCode('ndc', '1-2-3')).toBe('1-2-3');
    expect(normalizeServiceCode('cpt', '70553')).toBe('70553');
  });
});

describe('questionnaire templates', () => {
  it('are pinned by every route and carry the catalog version', () => {
    expect(templates.map((entry) => entry.questionnaire.id).sort()).toEqual([
      'tmpl_adalimumab',
      'tmpl_cpap_device',
      'tmpl_home_oxygen',
      'tmpl_knee_arthroplasty',
      'tmpl_mri_brain',
    ]);
    for (const { questionnaire } of templates) expect(questionnaire.version).toBe(CATALOG_VERSION);
  });

  it.each(templates.map((entry) => [entry.questionnaire.id, entry] as const))(
    '%s has exactly the patient linkIds of decision 0025 and the request group',
    (_id, { questionnaire }) => {
      const patient = questionnaire.groups.find((group) => group.id === 'patient')!;
      expect(patient.items.map((item) => item.linkId)).toEqual([...PATIENT_LINK_IDS]);
      expect(patient.items.map((item) => [item.answerType, item.required])).toEqual([
        ['string', true],
        ['string', true],
        ['string', true],
        ['date', true],
      ]);
      expect(patient.items.find((item) => item.linkId === 'patient.firstName')!.maxLength).toBe(100);
      expect(patient.items.find((item) => item.linkId === 'patient.lastName')!.maxLength).toBe(100);
      const request = questionnaire.groups.find((group) => group.id === 'request')!;
      expect(request.items.map((item) => item.linkId)).toEqual([
        'request.expedited',
        'request.diagnosisCode',
      ]);
      expect(request.items[0]).toMatchObject({
        answerType: 'boolean',
        required: false,
        defaultValue: { valueBoolean: false },
      });
      expect(request.items[1]).toMatchObject({
        answerType: 'string',
        required: true,
        pattern: ICD10_PATTERN,
      });
      expect(request.items[1]!.errorMessage).toBeTruthy();
      expect(questionnaire.groups.map((group) => group.id)).toEqual(['patient', 'request', 'clinical']);
    },
  );

  it.each(templates.map((entry) => [entry.questionnaire.id, entry] as const))(
    '%s is well formed: unique linkIds, conditions read only earlier items of a matching kind, valid bounds and options',
    (_id, { questionnaire, documents }) => {
      const items = itemsOf(questionnaire);
      const position = new Map(items.map((item, index) => [item.linkId, index]));
      expect(position.size).toBe(items.length);

      const checkLeaf = (leaf: Leaf, readerIndex: number) => {
        const target = position.get(leaf.linkId);
        expect({ reads: leaf.linkId, known: target !== undefined }).toEqual({
          reads: leaf.linkId,
          known: true,
        });
        // Reading only earlier items makes every dependency graph (notAllowedWhen included) acyclic.
        expect(target!).toBeLessThan(readerIndex);
        if (leaf.operator === 'exists') {
          expect(typeof leaf.exists).toBe('boolean');
          return;
        }
        const read = items[target!]!;
        expect(Object.keys(leaf.answer!)).toEqual([KIND_FIELD[read.answerType]]);
        if (read.answerType === 'coding') {
          expect(read.options!.map((entry) => entry.code)).toContain(leaf.answer!.valueCoding!.code);
        }
      };

      items.forEach((item, index) => {
        for (const condition of conditionsOf(item))
          for (const leaf of leaves(condition)) checkLeaf(leaf, index);
        if (item.pattern !== undefined) expect(() => new RegExp(item.pattern!)).not.toThrow();
        if (item.answerType === 'decimal') {
          for (const bound of [item.min, item.max])
            if (bound !== undefined) expect(Number.isFinite(Number(bound))).toBe(true);
          if (item.min !== undefined && item.max !== undefined)
            expect(Number(item.min)).toBeLessThan(Number(item.max));
        }
        if (item.answerType === 'date') {
          for (const bound of [item.min, item.max])
            if (bound !== undefined) expect(bound).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        }
        if (item.answerType === 'coding') {
          const codes = item.options!.map((entry) => entry.code);
          expect(new Set(codes).size).toBe(codes.length);
          for (const entry of item.valuesWhen?.cases ?? [])
            for (const value of entry.values) expect(codes).toContain(value);
        } else {
          expect(item.options).toBeUndefined();
          expect(item.valuesWhen).toBeUndefined();
        }
        if (item.defaultValue !== undefined)
          expect(Object.keys(item.defaultValue)).toEqual([KIND_FIELD[item.answerType]]);
      });

      const types = documents.map((document: DocumentRequirement) => document.type);
      expect(new Set(types).size).toBe(types.length);
      expect(types).toContain('clinical_notes');
      for (const document of documents) {
        expect(document.message.length).toBeGreaterThan(10);
        if (document.requiredWhen)
          for (const leaf of leaves(document.requiredWhen)) checkLeaf(leaf, items.length);
      }
    },
  );

  it('use every kind of condition somewhere, and require the documents the brief asks for', () => {
    const items = templates.flatMap((entry) => itemsOf(entry.questionnaire));
    expect(items.some((item) => item.requiredWhen)).toBe(true);
    expect(items.some((item) => item.notAllowedWhen)).toBe(true);
    expect(items.some((item) => item.valuesWhen)).toBe(true);
    expect(items.some((item) => item.textWhen)).toBe(true);
    const documents = new Map(templates.map((entry) => [entry.questionnaire.id, entry.documents]));
    expect(documents.get('tmpl_adalimumab')!.map((document) => document.type)).toContain('prescription');
    const imaging = documents.get('tmpl_mri_brain')!.find((document) => document.type === 'imaging_report')!;
    expect(imaging.requiredWhen).toEqual({
      linkId: 'clinical.priorImaging',
      operator: '=',
      answer: { valueBoolean: true },
    });
  });

  it('accepts ICD-10-CM codes and rejects other text in request.diagnosisCode', () => {
    const pattern = new RegExp(ICD10_PATTERN);
    for (const code of ['M17.11', 'G43.909', 'R51', 'S72.001A', 'E11.9', 'Z79.899'])
      expect(pattern.test(code)).toBe(true);
    for (const code of ['U07.1', 'm17.11', '1234', 'M17.', 'M17.12345', ''])
      expect(pattern.test(code)).toBe(false);
  });

  // `validateTemplate` is looked up at run time: while the domain package does not export it from its index
  // yet, this check is skipped (the structural checks above still run); it turns on by itself once exported.
  const validateTemplate = (domain as Record<string, unknown>)['validateTemplate'] as
    ((template: QuestionnaireTemplate, documents?: readonly DocumentRequirement[]) => unknown) | undefined;
  (validateTemplate ? it.each : it.skip.each)(
    templates.map((entry) => [entry.questionnaire.id, entry] as const),
  )(
    '%s passes the domain template validation (skipped until @prior-auth/domain exports validateTemplate)',
    (_id, { questionnaire, documents }) => {
      expect(() => validateTemplate!(questionnaire, documents)).not.toThrow();
    },
  );
});
