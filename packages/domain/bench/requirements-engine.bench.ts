/*
 * Requirements engine benchmark: a synthetic 500-item form in 10 groups, every type, with chained
 * notAllowedWhen conditions, requiredWhen, valuesWhen, textWhen, patterns and bounds, plus conditional
 * document requirements. Prints the mean time per evaluateRequirements call. Target: well under 1 ms.
 * Run with `pnpm --filter @prior-auth/domain bench`.
 */
import {
  evaluateRequirements,
  presentQuestionnaire,
  validateTemplate,
  type Answer,
  type Condition,
  type DocumentRequirement,
  type QuestionnaireItemTemplate,
  type QuestionnaireResponse,
  type QuestionnaireTemplate,
} from '../src/requirements';

const ITEMS = 500;
const GROUPS = 10;
const WARMUP = 2_000;
const ITERATIONS = 20_000;

function buildTemplate(): QuestionnaireTemplate {
  const items: QuestionnaireItemTemplate[] = [];
  for (let index = 0; index < ITEMS; index += 1) {
    const linkId = `q${index}`;
    const kind = index % 5;
    const item: QuestionnaireItemTemplate = {
      linkId,
      text: `Question ${index}`,
      required: index % 3 === 0,
      answerType: (['boolean', 'decimal', 'string', 'date', 'coding'] as const)[kind] ?? 'string',
    };
    if (kind === 1) Object.assign(item, { min: '0', max: '100' });
    if (kind === 2) Object.assign(item, { pattern: '[A-Za-z ]+', maxLength: 40 });
    if (kind === 3) Object.assign(item, { min: '2000-01-01', max: '2030-12-31' });
    if (kind === 4) {
      item.options = [
        { code: 'a', display: 'A' },
        { code: 'b', display: 'B' },
        { code: 'c', display: 'C' },
      ];
      item.repeats = true;
    }
    if (index >= 5) {
      // Each item reads the item five places back, so dependencies chain through the whole form.
      const gate = `q${index - 5}`;
      const byType: Condition =
        (index - 5) % 5 === 0
          ? { linkId: gate, operator: '!=', answer: { valueBoolean: false } }
          : (index - 5) % 5 === 1
            ? { linkId: gate, operator: '<', answer: { valueDecimal: 90 } }
            : { linkId: gate, operator: 'exists', exists: false };
      if (index % 2 === 0) item.notAllowedWhen = byType;
      else
        item.requiredWhen = {
          any: [byType, { not: { linkId: 'q1', operator: '>=', answer: { valueDecimal: 50 } } }],
        };
    }
    if (kind === 4 && index % 4 === 0) {
      item.valuesWhen = {
        cases: [
          { when: { linkId: 'q0', operator: '=', answer: { valueBoolean: true } }, values: ['a', 'b'] },
        ],
      };
    }
    if (index % 25 === 0) {
      item.textWhen = {
        cases: [
          { when: { linkId: 'q2', operator: '=', answer: { valueString: 'alt' } }, text: 'Alternative' },
        ],
      };
    }
    items.push(item);
  }
  const perGroup = ITEMS / GROUPS;
  return {
    id: 'bench',
    version: '1',
    title: 'Benchmark form',
    groups: Array.from({ length: GROUPS }, (_unused, group) => ({
      id: `g${group}`,
      title: `Group ${group}`,
      items: items.slice(group * perGroup, (group + 1) * perGroup),
    })),
  };
}

function answerFor(index: number): Answer {
  switch (index % 5) {
    case 0:
      return { valueBoolean: index % 10 === 0 };
    case 1:
      return { valueDecimal: index % 120 };
    case 2:
      return { valueString: index % 7 === 0 ? 'bad value 123' : 'Some text' };
    case 3:
      return { valueDate: index % 11 === 0 ? '2023-02-30' : '2021-06-15' };
    default:
      return { valueCoding: { code: index % 6 === 0 ? 'z' : 'b' } };
  }
}

function buildResponse(): QuestionnaireResponse {
  // About two thirds answered, so every path (questions, issues, not-allowed answers) is exercised.
  const item = [];
  for (let index = 0; index < ITEMS; index += 1) {
    if (index % 3 !== 2) item.push({ linkId: `q${index}`, answer: [answerFor(index)] });
  }
  item.push({ linkId: 'not-in-form', answer: [{ valueString: 'x' }] });
  return { item };
}

const template = buildTemplate();
const documents: DocumentRequirement[] = Array.from({ length: 20 }, (_unused, index) => ({
  type: `doc-${index}`,
  label: `Document ${index}`,
  message: `Attach document ${index}.`,
  ...(index % 2 === 0
    ? { requiredWhen: { linkId: `q${index * 5}`, operator: 'exists', exists: true } as Condition }
    : {}),
}));
const response = buildResponse();
const attached = ['doc-0', 'doc-3'];

const compileStart = performance.now();
validateTemplate(template, documents);
const compileMs = performance.now() - compileStart;

let sink = 0;
for (let run = 0; run < WARMUP; run += 1)
  sink += evaluateRequirements(template, documents, response, attached).issues.length;

const start = performance.now();
for (let run = 0; run < ITERATIONS; run += 1) {
  sink += evaluateRequirements(template, documents, response, attached).questions.length;
}
const meanMs = (performance.now() - start) / ITERATIONS;

const presentStart = performance.now();
for (let run = 0; run < 2_000; run += 1) sink += presentQuestionnaire(template, response).length;
const presentMs = (performance.now() - presentStart) / 2_000;

const sample = evaluateRequirements(template, documents, response, attached);
console.log(
  `requirements engine: ${ITEMS} items, ${GROUPS} groups, ${documents.length} document requirements`,
);
console.log(`  compile + validate (once):      ${compileMs.toFixed(3)} ms`);
console.log(
  `  evaluateRequirements mean:      ${(meanMs * 1000).toFixed(1)} µs/call over ${ITERATIONS} calls`,
);
console.log(`  presentQuestionnaire mean:      ${(presentMs * 1000).toFixed(1)} µs/call`);
console.log(
  `  result: ${sample.questions.length} questions, ${sample.documents.length} documents, ${sample.issues.length} issues (checksum ${sink % 997})`,
);
if (meanMs >= 1) {
  console.error(`  evaluation mean ${meanMs.toFixed(3)} ms is over the 1 ms target`);
  process.exitCode = 1;
}
