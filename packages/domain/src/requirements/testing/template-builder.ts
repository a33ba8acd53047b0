import type {
  Answer,
  AnswerType,
  QuestionnaireItemTemplate,
  QuestionnaireResponse,
  QuestionnaireTemplate,
} from '../questionnaire.types';

/** An item with neutral defaults; tests spell out only what they exercise. */
export function item(
  linkId: string,
  answerType: AnswerType,
  extra: Partial<QuestionnaireItemTemplate> = {},
): QuestionnaireItemTemplate {
  return { linkId, text: `Question ${linkId}`, required: false, answerType, ...extra };
}

/** A one-group template, or several groups when given arrays. */
export function template(...groups: QuestionnaireItemTemplate[][]): QuestionnaireTemplate {
  return {
    id: 'test-template',
    version: '1',
    title: 'Test template',
    groups: groups.map((items, index) => ({ id: `group-${index + 1}`, title: `Group ${index + 1}`, items })),
  };
}

/** A response from `{linkId: answers}`, in key order. */
export function response(answers: Record<string, Answer[]>): QuestionnaireResponse {
  return { item: Object.entries(answers).map(([linkId, answer]) => ({ linkId, answer })) };
}

export const str = (valueString: string): Answer => ({ valueString });
export const num = (valueDecimal: number): Answer => ({ valueDecimal });
export const bool = (valueBoolean: boolean): Answer => ({ valueBoolean });
export const date = (valueDate: string): Answer => ({ valueDate });
export const code = (value: string, system?: string): Answer => ({
  valueCoding: system === undefined ? { code: value } : { code: value, system },
});
