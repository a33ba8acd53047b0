import type { QuestionnaireResponse, QuestionnaireResponseItem } from '../requirements/questionnaire.types';
import { deepCopy } from './deep-copy';

/**
 * Decision 15: each item sent replaces that linkId's answers, an empty `answer` array clears it, items not
 * sent are kept. Within one request a later duplicate linkId wins, matching "replace" semantics; the item
 * keeps the position where its linkId first appeared so the response order stays stable.
 */
export const mergeQuestionnaireResponse = (
  current: QuestionnaireResponse,
  patch: readonly QuestionnaireResponseItem[],
): QuestionnaireResponse => {
  const byLinkId = new Map<string, QuestionnaireResponseItem>();
  for (const item of current.item) byLinkId.set(item.linkId, deepCopy(item));
  for (const item of patch) {
    if (item.answer.length === 0) byLinkId.delete(item.linkId);
    else byLinkId.set(item.linkId, { linkId: item.linkId, answer: deepCopy(item.answer) });
  }
  // Map iteration keeps first-insertion order, but a cleared-then-re-added linkId moves to the end.
  return { item: [...byLinkId.values()] };
};

/** Initial answers on create: drop empty items and collapse duplicate linkIds. */
export const normalizeQuestionnaireResponse = (
  response: QuestionnaireResponse | undefined,
): QuestionnaireResponse => mergeQuestionnaireResponse({ item: [] }, response?.item ?? []);
