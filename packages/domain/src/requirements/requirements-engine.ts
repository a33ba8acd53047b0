import { validateAnswers } from './answer-validator';
import { resolveItemStates } from './item-state.resolver';
import type { AnswersByIndex } from './condition-evaluator';
import type {
  DocumentRequirement,
  QuestionnaireResponse,
  QuestionnaireTemplate,
  RequirementIssue,
  RequirementSet,
} from './questionnaire.types';
import { compileDocumentRequirements, compileTemplate, type CompiledItem } from './template-compiler';

/**
 * The unresolved blockers of an answer set: required allowed items without answers, document requirements
 * (conditional ones only while their condition holds) not covered by an attached document type, and issues
 * with the answers given. Deterministic: template order, then unknown linkIds in response order. Never echoes
 * answer values. Throws `template_invalid` only for an invalid template or document requirements.
 */
export function evaluateRequirements(
  template: QuestionnaireTemplate,
  documentRequirements: readonly DocumentRequirement[],
  response: QuestionnaireResponse,
  attachedDocumentTypes: readonly string[],
): RequirementSet {
  const compiled = compileTemplate(template);
  const documents = compileDocumentRequirements(compiled, documentRequirements);
  const { answers, effective, allowed, unknownLinkIds } = resolveItemStates(compiled, response);

  const questions: RequirementSet['questions'] = [];
  const issues: RequirementIssue[] = [];
  for (const item of compiled.items) {
    const given = answers[item.index] ?? [];
    if (!allowed[item.index]) {
      if (given.length > 0) {
        issues.push({
          code: 'answer_not_allowed',
          message: 'This question must not be answered given the other answers.',
          field: item.linkId,
          severity: 'error',
        });
      }
      continue;
    }
    if (given.length === 0) {
      if (item.required || (item.requiredWhen !== undefined && item.requiredWhen(effective))) {
        questions.push({
          linkId: item.linkId,
          message: `An answer is required: ${resolveText(item, effective)}`,
        });
      }
      continue;
    }
    validateAnswers(
      item,
      given,
      item.repeats,
      item.answerType === 'coding' ? allowedCodes(item, effective) : undefined,
      issues,
    );
  }

  // FHIR: a required group needs at least one answer among its items while it is enabled. Not asked while a
  // question inside it is: answering that one satisfies the group too.
  const asked = new Set(questions.map((question) => question.linkId));
  for (const { rule, indexes, requiredWhen } of compiled.requiredGroups) {
    if (requiredWhen !== undefined && !requiredWhen(effective)) continue;
    if (indexes.some((index) => (effective[index]?.length ?? 0) > 0)) continue;
    if (indexes.some((index) => asked.has(compiled.items[index]?.linkId ?? ''))) continue;
    questions.push({ linkId: rule.linkId, message: `At least one answer is required in: ${rule.text}` });
  }

  for (const linkId of unknownLinkIds) {
    issues.push({
      code: 'unknown_link_id',
      message: 'The questionnaire has no item with this linkId.',
      field: linkId,
      severity: 'error',
    });
  }

  const attached = new Set(attachedDocumentTypes);
  const missingDocuments: RequirementSet['documents'] = [];
  for (const { requirement, requiredWhen } of documents) {
    if (attached.has(requirement.type)) continue;
    if (requiredWhen !== undefined && !requiredWhen(effective)) continue;
    missingDocuments.push({ type: requirement.type, message: requirement.message });
  }

  return { questions, documents: missingDocuments, issues };
}

/** The first `valuesWhen` case that holds restricts the codes; otherwise the options (or anything). */
export function allowedCodes(item: CompiledItem, effective: AnswersByIndex): ReadonlySet<string> | undefined {
  for (const entry of item.valuesWhen) if (entry.when(effective)) return entry.values;
  return item.optionCodes;
}

/** The first `textWhen` case that holds supplies the text; otherwise the item's own. */
export function resolveText(item: CompiledItem, effective: AnswersByIndex): string {
  for (const entry of item.textWhen) if (entry.when(effective)) return entry.text;
  return item.item.text;
}
