import { resolveItemStates } from './item-state.resolver';
import type {
  DocumentRequirement,
  QuestionnaireResponse,
  QuestionnaireTemplate,
} from './questionnaire.types';
import { resolveText } from './requirements-engine';
import { compileDocumentRequirements, compileTemplate } from './template-compiler';

export interface ChecklistQuestion {
  linkId: string;
  /** For a question inside a repeating group: the group instance this entry is about (one entry each). */
  instance?: number;
  /** The question's text for the current answers (`textWhen` resolved). */
  text: string;
  required: boolean;
  answered: boolean;
}

export interface ChecklistDocument {
  type: string;
  label: string;
  message: string;
  required: boolean;
  provided: boolean;
}

export interface RequirementChecklist {
  questions: ChecklistQuestion[];
  documents: ChecklistDocument[];
}

/**
 * Every enabled question and every document requirement with whether it is required now and whether it is
 * answered or provided: the same rules as `evaluateRequirements`, listed in full instead of as blockers (the
 * legacy workflow shape and the submission preview read it, decision 0032).
 */
export function requirementChecklist(
  template: QuestionnaireTemplate,
  documentRequirements: readonly DocumentRequirement[],
  response: QuestionnaireResponse,
  attachedDocumentTypes: readonly string[],
): RequirementChecklist {
  const compiled = compileTemplate(template);
  const documents = compileDocumentRequirements(compiled, documentRequirements);
  const { answers, effective, allowed, groups } = resolveItemStates(compiled, response);
  const questions: ChecklistQuestion[] = [];
  for (const item of compiled.items) {
    const group = compiled.repeatingGroupOf[item.index] ?? -1;
    const places =
      group === -1
        ? [{ instance: undefined, given: answers[item.index], on: allowed[item.index], view: effective }]
        : (groups[group]?.instances ?? []).map((instance, position) => ({
            instance,
            given: groups[group]?.answers[position]?.[item.index],
            on: groups[group]?.allowed[position]?.[item.index],
            view: groups[group]?.effective[position] ?? effective,
          }));
    for (const { instance, given, on, view } of places) {
      if (on === false) continue;
      questions.push({
        linkId: item.linkId,
        ...(instance === undefined ? {} : { instance }),
        text: resolveText(item, view),
        required: item.required || (item.requiredWhen !== undefined && item.requiredWhen(view)),
        answered: (given?.length ?? 0) > 0,
      });
    }
  }
  const attached = new Set(attachedDocumentTypes);
  return {
    questions,
    documents: documents.map(({ requirement, requiredWhen }) => ({
      type: requirement.type,
      label: requirement.label,
      message: requirement.message,
      required: requiredWhen === undefined || requiredWhen(effective),
      provided: attached.has(requirement.type),
    })),
  };
}
