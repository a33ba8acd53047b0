import type { QuestionnaireResponse, QuestionnaireResponseItem } from '../requirements/questionnaire.types';
import { deepCopy } from './deep-copy';

/**
 * Decision 0028: each item sent replaces that linkId's answers, an empty `answer` array clears it, items not
 * sent are kept. Within one request a later duplicate linkId wins, matching "replace" semantics; the item
 * keeps the position where its linkId first appeared so the response order stays stable. A question inside a
 * repeating group is merged per group instance (decision 0036): the key is the linkId and the `instance`
 * (absent reads as 0), so answering or clearing one instance leaves the others alone.
 */
export const mergeQuestionnaireResponse = (
  current: QuestionnaireResponse,
  patch: readonly QuestionnaireResponseItem[],
): QuestionnaireResponse => {
  const byLinkId = new Map<string, QuestionnaireResponseItem>();
  for (const item of current.item) byLinkId.set(keyOf(item), deepCopy(item));
  for (const item of patch) {
    const key = keyOf(item);
    if (item.answer.length === 0) byLinkId.delete(key);
    else
      byLinkId.set(key, {
        linkId: item.linkId,
        ...(item.instance === undefined ? {} : { instance: item.instance }),
        answer: deepCopy(item.answer),
      });
  }
  // Map iteration keeps first-insertion order, but a cleared-then-re-added linkId moves to the end.
  return { item: [...byLinkId.values()] };
};

/** Initial answers on create: drop empty items and collapse duplicate linkIds. */
export const normalizeQuestionnaireResponse = (
  response: QuestionnaireResponse | undefined,
): QuestionnaireResponse => mergeQuestionnaireResponse({ item: [] }, response?.item ?? []);

/** Unambiguous for any linkId text. */
const keyOf = (item: QuestionnaireResponseItem): string =>
  JSON.stringify([item.linkId, typeof item.instance === 'number' ? item.instance : 0]);
