import { validateAnswers } from './answer-validator';
import { MAX_GROUP_INSTANCES } from '../shared/input-limits';
import { resolveItemStates, type GroupInstanceStates } from './item-state.resolver';
import type { AnswersByIndex } from './condition-evaluator';
import type {
  Answer,
  DocumentRequirement,
  OutstandingQuestion,
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
  const { answers, effective, allowed, unknownLinkIds, groups, misplacedInstances } = resolveItemStates(
    compiled,
    response,
  );

  const questions: RequirementSet['questions'] = [];
  const issues: RequirementIssue[] = [];
  for (const item of compiled.items) {
    const group = compiled.repeatingGroupOf[item.index] ?? -1;
    if (group === -1) {
      evaluateItem(
        item,
        answers[item.index] ?? [],
        allowed[item.index] ?? true,
        effective,
        undefined,
        questions,
        issues,
      );
      continue;
    }
    // A question inside a repeating group is asked and validated in each of the group's instances.
    const state = groups[group] as GroupInstanceStates;
    state.instances.forEach((instance, position) => {
      evaluateItem(
        item,
        state.answers[position]?.[item.index] ?? [],
        state.allowed[position]?.[item.index] ?? true,
        state.effective[position] ?? effective,
        instance,
        questions,
        issues,
      );
    });
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

  for (const { linkId, reason } of misplacedInstances) {
    issues.push({
      code: 'instance_not_allowed',
      message:
        reason === 'not_repeating'
          ? 'This question is not inside a repeating group; send its answers without an instance.'
          : `The instance must be a whole number from 0 to ${MAX_GROUP_INSTANCES - 1}.`,
      field: linkId,
      severity: 'error',
    });
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

/** One question in one place: the form, or one instance of its repeating group (`instance`). */
function evaluateItem(
  item: CompiledItem,
  given: readonly Answer[],
  allowed: boolean,
  effective: AnswersByIndex,
  instance: number | undefined,
  questions: RequirementSet['questions'],
  issues: RequirementIssue[],
): void {
  if (!allowed) {
    if (given.length > 0) {
      const issue: RequirementIssue = {
        code: 'answer_not_allowed',
        message: 'This question must not be answered given the other answers.',
        field: item.linkId,
        severity: 'error',
      };
      if (instance !== undefined) issue.instance = instance;
      issues.push(issue);
    }
    return;
  }
  if (given.length === 0) {
    if (item.required || (item.requiredWhen !== undefined && item.requiredWhen(effective))) {
      const question: OutstandingQuestion = {
        linkId: item.linkId,
        message: `An answer is required: ${resolveText(item, effective)}`,
      };
      if (instance !== undefined) question.instance = instance;
      questions.push(question);
    }
    return;
  }
  const first = issues.length;
  validateAnswers(
    item,
    given,
    item.repeats,
    item.answerType === 'coding' ? allowedCodes(item, effective) : undefined,
    issues,
  );
  if (instance !== undefined)
    for (let i = first; i < issues.length; i += 1) (issues[i] as RequirementIssue).instance = instance;
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
