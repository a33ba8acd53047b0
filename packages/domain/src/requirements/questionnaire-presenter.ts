import { resolveItemStates, applyAllowedness } from './item-state.resolver';
import type {
  Answer,
  PresentedQuestionnaireGroup,
  QuestionnaireResponse,
  QuestionnaireResponseItem,
  QuestionnaireTemplate,
} from './questionnaire.types';
import { resolveText } from './requirements-engine';
import { compileTemplate } from './template-compiler';

/**
 * The questionnaire as the client sees it for the current answers: each item's `textWhen` resolved into
 * `text`; everything else (options, constraints, condition objects, `defaultValue`) kept unchanged so
 * clients can evaluate the conditions themselves.
 */
export function presentQuestionnaire(
  template: QuestionnaireTemplate,
  response: QuestionnaireResponse,
): PresentedQuestionnaireGroup[] {
  const compiled = compileTemplate(template);
  const { effective } = resolveItemStates(compiled, response);
  let index = 0;
  return template.groups.map((group) => ({
    id: group.id,
    title: group.title,
    items: group.items.map((item) => {
      const compiledItem = compiled.items[index];
      index += 1;
      return { ...item, text: compiledItem ? resolveText(compiledItem, effective) : item.text };
    }),
  }));
}

/**
 * Fills `defaultValue` into every allowed item without answers (used when a case is created). Defaults are
 * applied in dependency order, so a default can make a later item allowed and its default apply too. Returns a
 * new response: entries already present keep their place, new ones follow in template order.
 */
export function applyDefaults(
  template: QuestionnaireTemplate,
  response: QuestionnaireResponse,
): QuestionnaireResponse {
  const compiled = compileTemplate(template);
  const { answers } = resolveItemStates(compiled, response);
  const filled = new Map<number, Answer>();
  applyAllowedness(compiled, answers, (index, effective) => {
    const defaultValue = compiled.items[index]?.item.defaultValue;
    if (defaultValue !== undefined && (effective[index]?.length ?? 0) === 0) {
      effective[index] = [defaultValue];
      filled.set(index, defaultValue);
    }
  });
  if (filled.size === 0) return { item: [...(response.item ?? [])] };

  const placed = new Set<number>();
  const items: QuestionnaireResponseItem[] = (response.item ?? []).map((entry) => {
    const index = compiled.indexByLinkId.get(entry.linkId);
    const value = index === undefined ? undefined : filled.get(index);
    if (index === undefined || value === undefined || placed.has(index)) return entry;
    placed.add(index);
    return { linkId: entry.linkId, answer: [copyAnswer(value)] };
  });
  for (const [index, value] of [...filled].sort(([a], [b]) => a - b)) {
    const item = compiled.items[index];
    if (item && !placed.has(index)) items.push({ linkId: item.linkId, answer: [copyAnswer(value)] });
  }
  return { item: items };
}

/** Copies so a caller mutating the response cannot change the template's default. */
function copyAnswer(answer: Answer): Answer {
  return answer.valueCoding ? { ...answer, valueCoding: { ...answer.valueCoding } } : { ...answer };
}
