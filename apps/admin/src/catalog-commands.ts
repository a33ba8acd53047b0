import { readFile } from 'node:fs/promises';
import {
  DomainError,
  importFhirQuestionnaireWithWarnings,
  type DocumentRequirement,
  type FhirImportWarning,
  type QuestionnaireTemplate,
  type TemplateProblem,
} from '@prior-auth/domain';
import {
  importRouteTemplate,
  listCatalogRoutes,
  PATIENT_LINK_IDS,
  showCatalogRoute,
  type CatalogServiceCodeSystem,
  type CatalogServiceType,
} from '@prior-auth/persistence-postgres';
import { InvalidArgumentError, type Command } from 'commander';
import type { CliIo } from './cli';

/** The database the catalog commands work on (a TypeORM DataSource). */
export type CatalogDatabase = Parameters<typeof importRouteTemplate>[0];

/** What `catalog import` refuses: the message is the whole report, one problem a line. */
export class CatalogImportRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogImportRefused';
  }
}

interface ImportOptions {
  payer: string;
  serviceCode: string;
  serviceCodeSystem: CatalogServiceCodeSystem;
  state: string;
  serviceType: CatalogServiceType;
  documents?: DocumentRequirement[];
  json?: boolean;
}

// Document types are stable keys that clients attach files under (decision 0006).
const DOCUMENT_TYPE = /^[a-z][a-z0-9_]{0,63}$/;

/** `type:label,type:label`, e.g. `prescription:Signed prescription,clinical_notes:Clinical notes`. */
export function parseDocuments(value: string): DocumentRequirement[] {
  const documents = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry): DocumentRequirement => {
      const colon = entry.indexOf(':');
      const type = (colon < 0 ? entry : entry.slice(0, colon)).trim();
      const label = (colon < 0 ? '' : entry.slice(colon + 1)).trim();
      if (!DOCUMENT_TYPE.test(type) || label === '')
        throw new InvalidArgumentError(
          `"${entry}" is not type:label (type: lower-case letters, digits and _; label: any text)`,
        );
      return { type, label, message: `Attach the ${label.toLowerCase()}.` };
    });
  const types = documents.map((document) => document.type);
  const repeated = types.find((type, index) => types.indexOf(type) !== index);
  if (repeated !== undefined) throw new InvalidArgumentError(`document type "${repeated}" is listed twice`);
  return documents;
}

/** `catalog import | list | show` (decision 0018): real payer forms into the route catalog. */
export function addCatalogCommands(
  program: Command,
  database: () => Promise<CatalogDatabase>,
  io: CliIo,
): void {
  const catalog = program.command('catalog').description('payer routes and their questionnaires');

  catalog
    .command('import')
    .description('create or version the route of a selection from a FHIR R4 Questionnaire (JSON)')
    .argument('<file>', 'FHIR R4 Questionnaire, JSON')
    // An unquoted label with spaces would otherwise be cut short without a word.
    .allowExcessArguments(false)
    .requiredOption('--payer <payerId>', 'payer id, e.g. payer_uhc')
    .requiredOption('--service-code <code>', 'HCPCS, CPT or NDC code')
    .requiredOption('--service-code-system <system>', 'hcpcs, cpt or ndc')
    .requiredOption('--state <state>', 'two-letter insurance state')
    .requiredOption('--service-type <type>', 'inpatient, outpatient or drug')
    .option('--documents <type:label,…>', 'documents the route requires', parseDocuments)
    .option('--json', 'print JSON only')
    .action(async (file: string, options: ImportOptions) => {
      const { template, warnings } = importForm(await readJson(file), file);
      const result = await importRouteTemplate(await database(), {
        templateSelection: {
          payerId: options.payer,
          insuranceState: options.state,
          serviceType: options.serviceType,
          serviceCode: options.serviceCode,
          serviceCodeSystem: options.serviceCodeSystem,
        },
        questionnaire: template,
        documentRequirements: options.documents ?? [],
      });
      if (options.json) {
        io.out(
          JSON.stringify({
            routeId: result.route.id,
            templateSelection: result.route.templateSelection,
            templateVersion: result.templateVersion,
            previousVersion: result.previousVersion,
            patientGroupAdded: result.patientGroupAdded,
            questions: questionCount(result.route.questionnaire),
            warnings,
          }),
        );
        return;
      }
      const { templateSelection: s } = result.route;
      const lines = [
        `imported "${template.title}" (Questionnaire ${template.id}) as template version ${result.templateVersion} of route ${result.route.id}`,
        `  selection: ${s.payerId} ${s.insuranceState} ${s.serviceType} ${s.serviceCodeSystem} ${s.serviceCode}`,
        result.previousVersion === null
          ? '  new route'
          : `  replaces template version ${result.previousVersion}; cases already created keep the version they were created on`,
        `  ${summary(result.route.questionnaire)}`,
        `  documents: ${result.route.documentRequirements.map((d) => `${d.type} (${d.label})`).join(', ') || 'none'}`,
      ];
      if (result.patientGroupAdded) {
        lines.push(
          `  note: the patient group (${PATIENT_LINK_IDS.join(', ')}) was added: every route's questionnaire carries it`,
        );
      }
      io.out(lines.join('\n'));
      for (const warning of warnings) io.err(formatWarning(warning));
      if (warnings.length > 0)
        io.err(`${warnings.length} warning(s): approximations of the form, listed above`);
    });

  catalog
    .command('list')
    .description('routes, with their template and whether an operator imported it')
    .option('--payer <payerId>', 'only this payer')
    .option('--json', 'print JSON only')
    .action(async (options: { payer?: string; json?: boolean }) => {
      const routes = await listCatalogRoutes(await database(), { payerId: options.payer });
      if (options.json) {
        io.out(JSON.stringify(routes));
        return;
      }
      io.out(
        routes
          .map((route) => {
            const s = route.templateSelection;
            return [
              route.id,
              `${s.payerId} ${s.insuranceState} ${s.serviceType} ${s.serviceCodeSystem} ${s.serviceCode}`,
              `${route.templateId} v${route.templateVersion}`,
              route.imported ? 'imported' : 'shipped',
            ].join('\t');
          })
          .join('\n') || '(none)',
      );
    });

  catalog
    .command('show')
    .description('one route: its selection, questionnaire and documents')
    .argument('<routeId>')
    .option('--json', 'print JSON only')
    .action(async (routeId: string, options: { json?: boolean }) => {
      const route = await showCatalogRoute(await database(), routeId);
      if (options.json) {
        io.out(JSON.stringify(route));
        return;
      }
      const s = route.templateSelection;
      const q = route.questionnaire;
      const lines = [
        `${route.id} (${route.imported ? 'imported' : 'shipped'})`,
        `  selection: ${s.payerId} ${s.insuranceState} ${s.serviceType} ${s.serviceCodeSystem} ${s.serviceCode}`,
        `  template: "${q.title}" (${q.id}) version ${q.version}; ${summary(q)}`,
        ...q.groups.flatMap((group) => {
          // Display texts appear before the item at their position (after the last item when at the end).
          const displaysAt = (position: number) =>
            (group.displays ?? [])
              .filter((display) => display.position === position)
              .map(
                (display) =>
                  `    ${display.linkId} (text${display.hiddenWhen ? ', when enabled' : ''}): ${display.text}`,
              );
          return [
            `  [${group.id}] ${group.title}`,
            ...group.items.flatMap((item, index) => [
              ...displaysAt(index),
              `    ${item.linkId} (${item.valueType ?? item.answerType}${item.repeats ? ', repeats' : ''}${
                item.required ? ', required' : item.requiredWhen ? ', required when enabled' : ''
              }): ${item.text}`,
            ]),
            ...displaysAt(group.items.length),
          ];
        }),
        ...(q.groupRules ?? []).map(
          (rule) =>
            `  group ${rule.linkId}: ${[
              rule.required || rule.requiredWhen ? 'needs an answer' : '',
              rule.repeats ? 'repeats (answers carry their instance)' : '',
            ]
              .filter(Boolean)
              .join(', ')} (${rule.linkIds.join(', ')})`,
        ),
        `  documents: ${route.documentRequirements.map((d) => `${d.type} (${d.label})`).join(', ') || 'none'}`,
      ];
      io.out(lines.join('\n'));
    });
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CatalogImportRefused(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CatalogImportRefused(`${file} is not JSON: ${(error as Error).message}`);
  }
}

/** The import, or a refusal listing every problem with the item's linkId path. */
function importForm(json: unknown, file: string): ReturnType<typeof importFhirQuestionnaireWithWarnings> {
  try {
    return importFhirQuestionnaireWithWarnings(json);
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'template_invalid') throw error;
    const problems = (error.details['problems'] as TemplateProblem[] | undefined) ?? [];
    throw new CatalogImportRefused(
      [
        `${file} cannot be imported (${problems.length} problem(s)); nothing was changed:`,
        ...problems.map((problem) => {
          const where = problem.path ?? (problem.linkId === undefined ? 'form' : `"${problem.linkId}"`);
          return `  ${where}: ${problem.message} [${problem.code}]`;
        }),
      ].join('\n'),
    );
  }
}

function formatWarning(warning: FhirImportWarning): string {
  const where = warning.paths.length === 0 ? 'form' : warning.paths.join(', ');
  return `warning: ${warning.message} [${warning.code}] at ${where}`;
}

function questionCount(questionnaire: QuestionnaireTemplate): number {
  return questionnaire.groups.reduce((count, group) => count + group.items.length, 0);
}

function summary(questionnaire: QuestionnaireTemplate): string {
  const items = questionnaire.groups.flatMap((group) => group.items);
  const required = items.filter((item) => item.required || item.requiredWhen !== undefined).length;
  const rules = questionnaire.groupRules ?? [];
  const requiredGroups = rules.filter((rule) => rule.required || rule.requiredWhen !== undefined).length;
  const repeating = rules.filter((rule) => rule.repeats).length;
  const displays = questionnaire.groups.reduce((count, group) => count + (group.displays?.length ?? 0), 0);
  return `${questionnaire.groups.length} groups, ${items.length} questions (${required} required, some only while enabled), ${requiredGroups} required and ${repeating} repeating FHIR groups, ${displays} display texts`;
}
