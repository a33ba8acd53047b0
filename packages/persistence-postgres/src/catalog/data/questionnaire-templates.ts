import type {
  Condition,
  DocumentRequirement,
  QuestionnaireGroupTemplate,
  QuestionnaireItemTemplate,
  QuestionnaireTemplate,
} from '@prior-auth/domain';
import { CATALOG_VERSION } from './catalog-version';

/*
 * Questionnaire templates and document requirements, one per service code, shared by every payer and state
 * that offers the service. Every template has the same `patient` group (decision 0025) and `request` group,
 * then a clinical group specific to the service.
 *
 * Authoring rules (checked by `catalog-data.spec.ts`): linkIds are unique within a template; a condition reads
 * only items that come EARLIER in the template (so the dependency graph can never have a cycle); `valuesWhen`
 * lists only codes among the item's options; comparisons use the answer kind of the item they read.
 */

/** linkIds of the patient group every route's questionnaire must carry (decision 0025). */
export const PATIENT_LINK_IDS = [
  'patient.memberId',
  'patient.firstName',
  'patient.lastName',
  'patient.birthDate',
] as const;

/** ICD-10-CM code: a letter (not U), a digit, a digit or A/B, then optionally a dot and up to 4 characters. */
export const ICD10_PATTERN = '^[A-TV-Z][0-9][0-9AB](\\.[0-9A-TV-Z]{1,4})?$';

/** The patient group; `route-template.writer.ts` adds it to an imported form that lacks it. */
export const patientGroup = (): QuestionnaireGroupTemplate => ({
  id: 'patient',
  title: 'Patient',
  items: [
    {
      linkId: 'patient.memberId',
      text: 'Member ID (as printed on the insurance card)',
      required: true,
      answerType: 'string',
      maxLength: 64,
    },
    { linkId: 'patient.firstName', text: 'First name', required: true, answerType: 'string', maxLength: 100 },
    { linkId: 'patient.lastName', text: 'Last name', required: true, answerType: 'string', maxLength: 100 },
    {
      linkId: 'patient.birthDate',
      text: 'Date of birth',
      required: true,
      answerType: 'date',
      min: '1900-01-01',
      max: '2100-01-01',
      errorMessage: 'Enter a date of birth between 1900-01-01 and 2100-01-01.',
    },
  ],
});

const requestGroup = (): QuestionnaireGroupTemplate => ({
  id: 'request',
  title: 'Request',
  items: [
    {
      linkId: 'request.expedited',
      text: 'Expedited review: waiting for a standard decision could seriously jeopardize the patient’s life, health or ability to regain maximum function',
      required: false,
      answerType: 'boolean',
      defaultValue: { valueBoolean: false },
    },
    {
      linkId: 'request.diagnosisCode',
      text: 'Primary diagnosis (ICD-10-CM code)',
      required: true,
      answerType: 'string',
      pattern: ICD10_PATTERN,
      maxLength: 8,
      errorMessage:
        'Enter an ICD-10-CM code such as M17.11 (a letter, two characters, then optionally a dot and up to four characters).',
    },
  ],
});

const is = (linkId: string, code: string): Condition => ({
  linkId,
  operator: '=',
  answer: { valueCoding: { code } },
});
const isTrue = (linkId: string): Condition => ({ linkId, operator: '=', answer: { valueBoolean: true } });
const isNotTrue = (linkId: string): Condition => ({ linkId, operator: '!=', answer: { valueBoolean: true } });

const option = (code: string, display: string) => ({ code, display });

function template(id: string, title: string, clinical: QuestionnaireItemTemplate[]): QuestionnaireTemplate {
  return {
    id,
    version: CATALOG_VERSION,
    title,
    groups: [
      patientGroup(),
      requestGroup(),
      { id: 'clinical', title: 'Clinical information', items: clinical },
    ],
  };
}

const CLINICAL_NOTES: DocumentRequirement = {
  type: 'clinical_notes',
  label: 'Clinical notes',
  message:
    'Attach the most recent office or consultation notes that document the medical necessity of the request.',
};

/** MRI brain without contrast, followed by contrast (CPT 70553). */
const MRI_BRAIN = template('tmpl_mri_brain', 'MRI of the brain without and with contrast', [
  {
    linkId: 'clinical.primaryIndication',
    text: 'Primary indication for the MRI',
    required: true,
    answerType: 'coding',
    options: [
      option('headache', 'Headache with red-flag features'),
      option('seizure', 'New-onset or changed seizures'),
      option('focal_deficit', 'Focal neurological deficit'),
      option('known_tumor', 'Known or suspected tumor (staging or follow-up)'),
      option('multiple_sclerosis', 'Known or suspected multiple sclerosis'),
      option('other', 'Other'),
    ],
  },
  {
    linkId: 'clinical.otherIndication',
    text: 'Describe the indication',
    required: false,
    answerType: 'string',
    maxLength: 500,
    requiredWhen: is('clinical.primaryIndication', 'other'),
    notAllowedWhen: { not: is('clinical.primaryIndication', 'other') },
  },
  {
    linkId: 'clinical.symptomDurationWeeks',
    text: 'How long have the symptoms been present (weeks)?',
    required: true,
    answerType: 'decimal',
    min: '0',
    max: '520',
    errorMessage: 'Enter a duration between 0 and 520 weeks.',
  },
  {
    linkId: 'clinical.neurologicalExamFindings',
    text: 'Neurological examination findings',
    required: false,
    answerType: 'string',
    maxLength: 2000,
    requiredWhen: {
      any: [is('clinical.primaryIndication', 'seizure'), is('clinical.primaryIndication', 'focal_deficit')],
    },
  },
  {
    linkId: 'clinical.priorImaging',
    text: 'Has the patient had CT or MRI of the head for this condition?',
    required: true,
    answerType: 'boolean',
  },
  {
    linkId: 'clinical.priorImagingDate',
    text: 'Date of the most recent head imaging',
    required: false,
    answerType: 'date',
    min: '1990-01-01',
    max: '2100-01-01',
    requiredWhen: isTrue('clinical.priorImaging'),
    notAllowedWhen: isNotTrue('clinical.priorImaging'),
  },
  {
    linkId: 'clinical.knownKidneyDisease',
    text: 'Does the patient have known chronic kidney disease or acute kidney injury?',
    required: true,
    answerType: 'boolean',
  },
  {
    linkId: 'clinical.egfr',
    text: 'Most recent eGFR (mL/min/1.73 m²), if known',
    required: false,
    answerType: 'decimal',
    min: '0',
    max: '200',
    requiredWhen: isTrue('clinical.knownKidneyDisease'),
    textWhen: {
      cases: [
        {
          when: isTrue('clinical.knownKidneyDisease'),
          text: 'Most recent eGFR (mL/min/1.73 m²): required before gadolinium contrast for patients with kidney disease',
        },
      ],
    },
  },
]);

const MRI_BRAIN_DOCUMENTS: DocumentRequirement[] = [
  CLINICAL_NOTES,
  {
    type: 'imaging_report',
    label: 'Prior imaging report',
    message: 'Attach the radiology report of the prior head CT or MRI.',
    requiredWhen: isTrue('clinical.priorImaging'),
  },
  {
    type: 'lab_results',
    label: 'Renal function results',
    message: 'Attach the most recent renal function (eGFR / creatinine) results.',
    requiredWhen: isTrue('clinical.knownKidneyDisease'),
  },
];

/** Total knee arthroplasty (CPT 27447). */
const KNEE_ARTHROPLASTY = template('tmpl_knee_arthroplasty', 'Total knee arthroplasty', [
  {
    linkId: 'clinical.laterality',
    text: 'Which knee?',
    required: true,
    answerType: 'coding',
    options: [
      option('left', 'Left'),
      option('right', 'Right'),
      option('bilateral', 'Bilateral (staged or simultaneous)'),
    ],
  },
  {
    linkId: 'clinical.kellgrenLawrenceGrade',
    text: 'Radiographic severity (Kellgren–Lawrence grade)',
    required: true,
    answerType: 'coding',
    options: [
      option('1', 'Grade 1: doubtful narrowing'),
      option('2', 'Grade 2: definite osteophytes, possible narrowing'),
      option('3', 'Grade 3: definite narrowing, some sclerosis'),
      option('4', 'Grade 4: marked narrowing, severe sclerosis, deformity'),
    ],
  },
  {
    linkId: 'clinical.bmi',
    text: 'Body-mass index (kg/m²)',
    required: true,
    answerType: 'decimal',
    min: '10',
    max: '100',
    errorMessage: 'Enter a BMI between 10 and 100.',
  },
  {
    linkId: 'clinical.weightManagementPlan',
    text: 'Weight-management plan and perioperative risk assessment (BMI 40 or above)',
    required: false,
    answerType: 'string',
    maxLength: 2000,
    requiredWhen: { linkId: 'clinical.bmi', operator: '>=', answer: { valueDecimal: 40 } },
    notAllowedWhen: { linkId: 'clinical.bmi', operator: '<', answer: { valueDecimal: 40 } },
  },
  {
    linkId: 'clinical.conservativeTherapyWeeks',
    text: 'Weeks of conservative therapy tried',
    required: true,
    answerType: 'decimal',
    min: '0',
    max: '520',
  },
  {
    linkId: 'clinical.conservativeTherapies',
    text: 'Conservative therapies tried (select all)',
    required: false,
    answerType: 'coding',
    repeats: true,
    options: [
      option('physical_therapy', 'Physical therapy'),
      option('nsaids', 'NSAIDs or analgesics'),
      option('injections', 'Intra-articular injections'),
      option('bracing', 'Bracing or assistive devices'),
      option('weight_loss', 'Supervised weight loss'),
    ],
    requiredWhen: { linkId: 'clinical.conservativeTherapyWeeks', operator: '>', answer: { valueDecimal: 0 } },
  },
  {
    linkId: 'clinical.priorImaging',
    text: 'Have weight-bearing radiographs of the knee been taken?',
    required: true,
    answerType: 'boolean',
  },
  {
    linkId: 'clinical.livesAlone',
    text: 'Does the patient live alone?',
    required: true,
    answerType: 'boolean',
  },
  {
    linkId: 'clinical.dischargePlan',
    text: 'Planned discharge destination',
    required: true,
    answerType: 'coding',
    options: [
      option('home', 'Home with outpatient therapy'),
      option('home_health', 'Home with home-health services'),
      option('skilled_nursing', 'Skilled nursing facility'),
      option('inpatient_rehab', 'Inpatient rehabilitation facility'),
    ],
    valuesWhen: {
      cases: [
        {
          when: isTrue('clinical.livesAlone'),
          values: ['home_health', 'skilled_nursing', 'inpatient_rehab'],
        },
      ],
    },
  },
]);

const KNEE_ARTHROPLASTY_DOCUMENTS: DocumentRequirement[] = [
  CLINICAL_NOTES,
  {
    type: 'imaging_report',
    label: 'Knee radiograph report',
    message: 'Attach the radiology report of the weight-bearing knee radiographs.',
    requiredWhen: isTrue('clinical.priorImaging'),
  },
  {
    type: 'therapy_notes',
    label: 'Physical therapy notes',
    message: 'Attach the physical therapy notes documenting the conservative treatment.',
    requiredWhen: is('clinical.conservativeTherapies', 'physical_therapy'),
  },
];

/** CPAP device (HCPCS E0601). */
const CPAP = template('tmpl_cpap_device', 'Continuous positive airway pressure (CPAP) device', [
  {
    linkId: 'clinical.sleepStudyType',
    text: 'Type of qualifying sleep study',
    required: true,
    answerType: 'coding',
    options: [option('psg', 'In-lab polysomnography'), option('hsat', 'Home sleep apnea test')],
  },
  {
    linkId: 'clinical.sleepStudyDate',
    text: 'Date of the sleep study',
    required: true,
    answerType: 'date',
    min: '2000-01-01',
    max: '2100-01-01',
  },
  {
    linkId: 'clinical.apneaHypopneaIndex',
    text: 'Apnea–hypopnea index (AHI, events per hour)',
    required: true,
    answerType: 'decimal',
    min: '0',
    max: '200',
    errorMessage: 'Enter an index between 0 and 200 events per hour.',
    textWhen: {
      cases: [
        {
          when: is('clinical.sleepStudyType', 'hsat'),
          text: 'Respiratory event index from the home sleep apnea test (REI, events per hour)',
        },
      ],
    },
  },
  {
    linkId: 'clinical.comorbidities',
    text: 'Documented symptoms or comorbidities (select all)',
    required: false,
    answerType: 'coding',
    repeats: true,
    options: [
      option('excessive_daytime_sleepiness', 'Excessive daytime sleepiness'),
      option('impaired_cognition', 'Impaired cognition'),
      option('mood_disorder', 'Mood disorder'),
      option('insomnia', 'Insomnia'),
      option('hypertension', 'Hypertension'),
      option('ischemic_heart_disease', 'Ischemic heart disease'),
      option('stroke', 'History of stroke'),
    ],
    requiredWhen: { linkId: 'clinical.apneaHypopneaIndex', operator: '<', answer: { valueDecimal: 15 } },
  },
  {
    linkId: 'clinical.faceToFaceDate',
    text: 'Date of the face-to-face clinical evaluation',
    required: true,
    answerType: 'date',
    min: '2000-01-01',
    max: '2100-01-01',
  },
  {
    linkId: 'clinical.priorPapUse',
    text: 'Has the patient used a PAP device before?',
    required: true,
    answerType: 'boolean',
  },
  {
    linkId: 'clinical.papAdherencePercent',
    text: 'Nights with at least 4 hours of use during the last 30 days (%)',
    required: false,
    answerType: 'decimal',
    min: '0',
    max: '100',
    requiredWhen: isTrue('clinical.priorPapUse'),
    notAllowedWhen: isNotTrue('clinical.priorPapUse'),
  },
]);

const CPAP_DOCUMENTS: DocumentRequirement[] = [
  CLINICAL_NOTES,
  {
    type: 'sleep_study_report',
    label: 'Sleep study report',
    message: 'Attach the interpreted report of the qualifying sleep study.',
  },
  {
    type: 'compliance_report',
    label: 'PAP compliance download',
    message: 'Attach the usage download of the current PAP device covering the last 30 days.',
    requiredWhen: isTrue('clinical.priorPapUse'),
  },
];

/** Stationary oxygen concentrator (HCPCS E1390). */
const HOME_OXYGEN = template('tmpl_home_oxygen', 'Home oxygen concentrator', [
  {
    linkId: 'clinical.qualifyingTest',
    text: 'Qualifying test',
    required: true,
    answerType: 'coding',
    options: [option('pulse_oximetry', 'Pulse oximetry'), option('arterial_blood_gas', 'Arterial blood gas')],
  },
  {
    linkId: 'clinical.testCondition',
    text: 'Condition during the qualifying test',
    required: true,
    answerType: 'coding',
    options: [
      option('at_rest', 'At rest, awake'),
      option('exercise', 'During exercise'),
      option('sleep', 'During sleep'),
    ],
  },
  {
    linkId: 'clinical.testDate',
    text: 'Date of the qualifying test',
    required: true,
    answerType: 'date',
    min: '2000-01-01',
    max: '2100-01-01',
  },
  {
    linkId: 'clinical.oxygenSaturationPercent',
    text: 'Oxygen saturation (SpO₂, %)',
    required: false,
    answerType: 'decimal',
    min: '50',
    max: '100',
    requiredWhen: is('clinical.qualifyingTest', 'pulse_oximetry'),
    notAllowedWhen: is('clinical.qualifyingTest', 'arterial_blood_gas'),
  },
  {
    linkId: 'clinical.arterialPo2',
    text: 'Arterial oxygen tension (PaO₂, mm Hg)',
    required: false,
    answerType: 'decimal',
    min: '20',
    max: '150',
    requiredWhen: is('clinical.qualifyingTest', 'arterial_blood_gas'),
    notAllowedWhen: is('clinical.qualifyingTest', 'pulse_oximetry'),
  },
  {
    linkId: 'clinical.flowRateLitersPerMinute',
    text: 'Prescribed flow rate (liters per minute)',
    required: true,
    answerType: 'decimal',
    min: '0.5',
    max: '10',
    errorMessage: 'Enter a flow rate between 0.5 and 10 liters per minute.',
  },
  {
    linkId: 'clinical.usage',
    text: 'When is oxygen to be used?',
    required: true,
    answerType: 'coding',
    options: [
      option('continuous', 'Continuously'),
      option('nocturnal', 'During sleep only'),
      option('exertional', 'During exertion only'),
    ],
    valuesWhen: {
      cases: [
        { when: is('clinical.testCondition', 'sleep'), values: ['continuous', 'nocturnal'] },
        { when: is('clinical.testCondition', 'exercise'), values: ['continuous', 'exertional'] },
      ],
    },
  },
]);

const HOME_OXYGEN_DOCUMENTS: DocumentRequirement[] = [
  CLINICAL_NOTES,
  {
    type: 'oxygen_test_results',
    label: 'Qualifying oxygen test results',
    message:
      'Attach the qualifying oximetry or arterial blood gas results, with the test date and conditions.',
  },
  {
    type: 'certificate_of_medical_necessity',
    label: 'Certificate of medical necessity',
    message:
      'Attach the signed certificate of medical necessity for oxygen (CMS-484 or the payer’s equivalent).',
  },
];

/** Adalimumab 40 mg/0.4 mL pen (NDC 00074-0554-02). */
const ADALIMUMAB = template('tmpl_adalimumab', 'Adalimumab', [
  {
    linkId: 'clinical.indication',
    text: 'Indication',
    required: true,
    answerType: 'coding',
    options: [
      option('rheumatoid_arthritis', 'Rheumatoid arthritis'),
      option('psoriatic_arthritis', 'Psoriatic arthritis'),
      option('ankylosing_spondylitis', 'Ankylosing spondylitis'),
      option('crohns_disease', 'Crohn’s disease'),
      option('ulcerative_colitis', 'Ulcerative colitis'),
      option('plaque_psoriasis', 'Plaque psoriasis'),
      option('hidradenitis_suppurativa', 'Hidradenitis suppurativa'),
      option('uveitis', 'Non-infectious uveitis'),
    ],
  },
  {
    linkId: 'clinical.requestType',
    text: 'Is this the first request or a continuation of therapy?',
    required: true,
    answerType: 'coding',
    options: [option('initial', 'Initial therapy'), option('continuation', 'Continuation of therapy')],
  },
  {
    linkId: 'clinical.priorTherapies',
    text: 'Conventional therapies tried and failed (select all)',
    required: false,
    answerType: 'coding',
    repeats: true,
    options: [
      option('methotrexate', 'Methotrexate'),
      option('sulfasalazine', 'Sulfasalazine'),
      option('hydroxychloroquine', 'Hydroxychloroquine'),
      option('leflunomide', 'Leflunomide'),
      option('nsaids', 'NSAIDs'),
      option('azathioprine', 'Azathioprine or 6-mercaptopurine'),
      option('aminosalicylates', 'Aminosalicylates'),
      option('corticosteroids', 'Systemic corticosteroids'),
      option('topical_therapy', 'Topical therapy'),
      option('phototherapy', 'Phototherapy'),
      option('oral_antibiotics', 'Oral antibiotics'),
    ],
    requiredWhen: is('clinical.requestType', 'initial'),
    valuesWhen: {
      cases: [
        {
          when: {
            any: [
              is('clinical.indication', 'rheumatoid_arthritis'),
              is('clinical.indication', 'psoriatic_arthritis'),
            ],
          },
          values: ['methotrexate', 'sulfasalazine', 'hydroxychloroquine', 'leflunomide', 'corticosteroids'],
        },
        { when: is('clinical.indication', 'ankylosing_spondylitis'), values: ['nsaids', 'sulfasalazine'] },
        {
          when: {
            any: [
              is('clinical.indication', 'crohns_disease'),
              is('clinical.indication', 'ulcerative_colitis'),
            ],
          },
          values: ['azathioprine', 'aminosalicylates', 'corticosteroids', 'methotrexate'],
        },
        {
          when: is('clinical.indication', 'plaque_psoriasis'),
          values: ['topical_therapy', 'phototherapy', 'methotrexate'],
        },
        {
          when: is('clinical.indication', 'hidradenitis_suppurativa'),
          values: ['oral_antibiotics', 'topical_therapy'],
        },
        { when: is('clinical.indication', 'uveitis'), values: ['corticosteroids', 'methotrexate'] },
      ],
    },
  },
  {
    linkId: 'clinical.tuberculosisScreeningDate',
    text: 'Date of the latest tuberculosis screening',
    required: false,
    answerType: 'date',
    min: '2000-01-01',
    max: '2100-01-01',
    requiredWhen: is('clinical.requestType', 'initial'),
  },
  {
    linkId: 'clinical.tuberculosisScreeningResult',
    text: 'Result of the tuberculosis screening',
    required: false,
    answerType: 'coding',
    options: [
      option('negative', 'Negative'),
      option('positive_treated', 'Positive, latent TB treated or under treatment'),
      option('indeterminate', 'Indeterminate'),
    ],
    requiredWhen: { linkId: 'clinical.tuberculosisScreeningDate', operator: 'exists', exists: true },
    notAllowedWhen: { linkId: 'clinical.tuberculosisScreeningDate', operator: 'exists', exists: false },
  },
  {
    linkId: 'clinical.doseMg',
    text: 'Dose per administration (mg)',
    required: true,
    answerType: 'decimal',
    min: '10',
    max: '160',
    errorMessage: 'Enter a dose between 10 and 160 mg.',
  },
  {
    linkId: 'clinical.dosingFrequency',
    text: 'Dosing frequency',
    required: true,
    answerType: 'coding',
    options: [
      option('induction', 'Induction regimen, then every other week'),
      option('every_other_week', 'Every other week'),
      option('weekly', 'Every week'),
    ],
  },
  {
    linkId: 'clinical.responseToTherapy',
    text: 'Describe the clinical response since therapy started',
    required: false,
    answerType: 'string',
    maxLength: 2000,
    requiredWhen: is('clinical.requestType', 'continuation'),
    notAllowedWhen: is('clinical.requestType', 'initial'),
  },
]);

const ADALIMUMAB_DOCUMENTS: DocumentRequirement[] = [
  CLINICAL_NOTES,
  {
    type: 'prescription',
    label: 'Prescription',
    message: 'Attach the signed prescription with drug, strength, dose and frequency.',
  },
  {
    type: 'lab_results',
    label: 'Tuberculosis screening result',
    message: 'Attach the tuberculosis screening result (IGRA or skin test) required before starting therapy.',
    requiredWhen: is('clinical.requestType', 'initial'),
  },
];

export interface ServiceTemplate {
  questionnaire: QuestionnaireTemplate;
  documentRequirements: DocumentRequirement[];
}

/** Templates by key (`ServiceDefinition.templateKey`). */
export const SERVICE_TEMPLATES = {
  mri_brain: { questionnaire: MRI_BRAIN, documentRequirements: MRI_BRAIN_DOCUMENTS },
  knee_arthroplasty: { questionnaire: KNEE_ARTHROPLASTY, documentRequirements: KNEE_ARTHROPLASTY_DOCUMENTS },
  cpap_device: { questionnaire: CPAP, documentRequirements: CPAP_DOCUMENTS },
  home_oxygen: { questionnaire: HOME_OXYGEN, documentRequirements: HOME_OXYGEN_DOCUMENTS },
  adalimumab: { questionnaire: ADALIMUMAB, documentRequirements: ADALIMUMAB_DOCUMENTS },
} as const satisfies Record<string, ServiceTemplate>;

export type ServiceTemplateKey = keyof typeof SERVICE_TEMPLATES;
