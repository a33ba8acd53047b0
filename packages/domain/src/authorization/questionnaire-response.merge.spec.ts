import type { QuestionnaireResponseItem } from '../requirements/questionnaire.types';
import { mergeQuestionnaireResponse, normalizeQuestionnaireResponse } from './questionnaire-response.merge';

const str = (valueString: string) => ({ valueString });
const entry = (
  linkId: string,
  instance: number | undefined,
  ...values: string[]
): QuestionnaireResponseItem => ({
  linkId,
  ...(instance === undefined ? {} : { instance }),
  answer: values.map(str),
});

describe('mergeQuestionnaireResponse', () => {
  const current = {
    item: [entry('plain', undefined, 'p'), entry('name', 0, 'first'), entry('name', 1, 'second')],
  };

  it.each([
    [
      'replaces one instance and keeps the others',
      [entry('name', 1, 'changed')],
      [entry('plain', undefined, 'p'), entry('name', 0, 'first'), entry('name', 1, 'changed')],
    ],
    [
      'adds an instance after the others',
      [entry('name', 2, 'third')],
      [
        entry('plain', undefined, 'p'),
        entry('name', 0, 'first'),
        entry('name', 1, 'second'),
        entry('name', 2, 'third'),
      ],
    ],
    [
      'clears one instance with an empty answer',
      [entry('name', 0)],
      [entry('plain', undefined, 'p'), entry('name', 1, 'second')],
    ],
    [
      'reads an entry without an instance as instance 0',
      [entry('name', undefined, 'again')],
      [entry('plain', undefined, 'p'), entry('name', undefined, 'again'), entry('name', 1, 'second')],
    ],
    [
      'keeps replacing by linkId outside repeating groups',
      [entry('plain', undefined, 'q')],
      [entry('plain', undefined, 'q'), entry('name', 0, 'first'), entry('name', 1, 'second')],
    ],
  ])('%s', (_label, patch, expected) => {
    expect(mergeQuestionnaireResponse(current, patch).item).toEqual(expected);
  });

  it('collapses duplicate (linkId, instance) pairs on create, the later one winning', () => {
    expect(
      normalizeQuestionnaireResponse({
        item: [entry('name', 1, 'a'), entry('name', 0, 'b'), entry('name', 1, 'c')],
      }).item,
    ).toEqual([entry('name', 1, 'c'), entry('name', 0, 'b')]);
  });
});
