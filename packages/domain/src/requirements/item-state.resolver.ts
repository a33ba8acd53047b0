import { isRecord } from './condition-evaluator';
import type { Answer, QuestionnaireResponse } from './questionnaire.types';
import type { CompiledTemplate } from './template-compiler';

const NO_ANSWERS: readonly Answer[] = Object.freeze([]);

export interface ItemStates {
  /** The answers given, per item index (several response entries for one linkId are concatenated). */
  answers: Array<readonly Answer[]>;
  /** What conditions read: the answers of allowed items, nothing for items that are not allowed. */
  effective: Array<readonly Answer[]>;
  allowed: boolean[];
  /** linkIds given answers that the template does not have, in response order, each once. */
  unknownLinkIds: string[];
}

/** Indexes a response by item and decides which items are allowed, in dependency order. */
export function resolveItemStates(compiled: CompiledTemplate, response: QuestionnaireResponse): ItemStates {
  const count = compiled.items.length;
  const answers: Array<readonly Answer[]> = new Array<readonly Answer[]>(count).fill(NO_ANSWERS);
  const unknown = new Set<string>();
  // Defensive: the response may be stored or client JSON; evaluation must not throw on its shape.
  const entries: unknown[] = isRecord(response) && Array.isArray(response.item) ? response.item : [];
  for (const entry of entries) {
    if (!isRecord(entry)) continue;
    const linkId = typeof entry['linkId'] === 'string' ? entry['linkId'] : '';
    const given = Array.isArray(entry['answer']) ? (entry['answer'] as Answer[]) : NO_ANSWERS;
    // An entry without answers asserts nothing (it clears), so even an unknown linkId there is harmless.
    if (given.length === 0) continue;
    const index = compiled.indexByLinkId.get(linkId);
    if (index === undefined) {
      unknown.add(linkId);
      continue;
    }
    const previous = answers[index] ?? NO_ANSWERS;
    answers[index] = previous.length === 0 ? given : [...previous, ...given];
  }
  return { ...applyAllowedness(compiled, answers), answers, unknownLinkIds: [...unknown] };
}

/**
 * Allowed-ness in topological order: when an item's `notAllowedWhen` runs, every item it reads is already
 * settled, so a disallowed item is seen as unanswered. One pass, linear in the template size.
 */
export function applyAllowedness(
  compiled: CompiledTemplate,
  answers: ReadonlyArray<readonly Answer[]>,
  onAllowed?: (index: number, effective: Array<readonly Answer[]>) => void,
): { effective: Array<readonly Answer[]>; allowed: boolean[] } {
  const effective = answers.slice();
  const allowed = new Array<boolean>(answers.length).fill(true);
  for (const index of compiled.allowedOrder) {
    const condition = compiled.items[index]?.notAllowedWhen;
    if (condition && condition(effective)) {
      allowed[index] = false;
      effective[index] = NO_ANSWERS;
    } else if (onAllowed) {
      onAllowed(index, effective);
    }
  }
  return { effective, allowed };
}
