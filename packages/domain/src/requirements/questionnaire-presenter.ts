import { resolveItemStates } from './item-state.resolver';
import type {
  Answer,
  PresentedQuestionnaireGroup,
  PresentedQuestionnaireItem,
  QuestionnaireResponse,
  QuestionnaireResponseItem,
  QuestionnaireTemplate,
} from './questionnaire.types';
import { resolveText } from './requirements-engine';
import { compileTemplate } from './template-compiler';

/**
 * The questionnaire as the client sees it for the current answers: each item's `textWhen` resolved into
 * `text`; everything else (options, constraints, condition objects, `defaultValue`) kept unchanged so
 * clients can evaluate the conditions themselves. A question inside a repeating group names that group
 * (`repeatingGroup`); its answers carry their group `instance`. Display texts are kept with their condition,
 * which clients evaluate like `notAllowedWhen` (decision 0036).
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
    ...(group.displays && group.displays.length > 0
      ? { displays: group.displays.map((display) => ({ ...display })) }
      : {}),
    items: group.items.map((item) => {
      const compiledItem = compiled.items[index];
      const group = compiled.repeatingGroupOf[index] ?? -1;
      index += 1;
      const presented: PresentedQuestionnaireItem = {
        ...item,
        text: compiledItem ? resolveText(compiledItem, effective) : item.text,
      };
      const rule = group === -1 ? undefined : compiled.repeatingGroups[group]?.rule;
      if (rule) presented.repeatingGroup = { linkId: rule.linkId, text: rule.text };
      return presented;
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
  // Filled per item index and group instance (undefined outside repeating groups), in dependency order.
  const filled = new Map<number, Map<number | undefined, Answer>>();
  resolveItemStates(compiled, response, (index, effective, instance) => {
    const defaultValue = compiled.items[index]?.item.defaultValue;
    if (defaultValue !== undefined && (effective[index]?.length ?? 0) === 0) {
      effective[index] = [defaultValue];
      const perInstance = filled.get(index) ?? new Map<number | undefined, Answer>();
      perInstance.set(instance, defaultValue);
      filled.set(index, perInstance);
    }
  });
  if (filled.size === 0) return { item: [...(response.item ?? [])] };

  const placed = new Set<number>();
  const items: QuestionnaireResponseItem[] = (response.item ?? []).map((entry) => {
    const index = compiled.indexByLinkId.get(entry.linkId);
    const value = index === undefined ? undefined : filled.get(index)?.get(undefined);
    if (index === undefined || value === undefined || placed.has(index)) return entry;
    placed.add(index);
    return { linkId: entry.linkId, answer: [copyAnswer(value)] };
  });
  for (const [index, perInstance] of [...filled].sort(([a], [b]) => a - b)) {
    const item = compiled.items[index];
    if (!item || placed.has(index)) continue;
    for (const [instance, value] of perInstance) {
      items.push({
        linkId: item.linkId,
        ...(instance === undefined ? {} : { instance }),
        answer: [copyAnswer(value)],
      });
    }
  }
  return { item: items };
}

/** Copies so a caller mutating the response cannot change the template's default. */
function copyAnswer(answer: Answer): Answer {
  return answer.valueCoding ? { ...answer, valueCoding: { ...answer.valueCoding } } : { ...answer };
}
