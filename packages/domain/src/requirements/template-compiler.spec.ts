import type { DocumentRequirement, QuestionnaireTemplate } from './questionnaire.types';
import {
  COMPILED_TEMPLATE_CACHE_SIZE,
  compileDocumentRequirements,
  compileTemplate,
} from './template-compiler';
import { item, template } from './testing/template-builder';

let counter = 0;
/** A template of its own id, so no other test shares its cache entries. */
const fresh = (): QuestionnaireTemplate => {
  counter += 1;
  return {
    ...template([item('a', 'string', { required: true, maxLength: 3 })]),
    id: `compiler-cache-${process.pid}-${counter}`,
  };
};
/** A copy as read back from storage: equal content, another object, keys possibly in another order. */
const storedCopy = (form: QuestionnaireTemplate): QuestionnaireTemplate =>
  JSON.parse(JSON.stringify(form)) as QuestionnaireTemplate;

describe('compileTemplate: one compilation per template version', () => {
  it('answers a copy of a compiled template version from the cache', () => {
    const form = fresh();
    const compiled = compileTemplate(form);
    expect(compileTemplate(storedCopy(form))).toBe(compiled);
    expect(compileTemplate(storedCopy(form))).toBe(compiled);
  });

  it('keeps copies whose keys come in another order apart from the original, each compiled once', () => {
    const form = fresh();
    const compiled = compileTemplate(form);
    const reordered = { groups: form.groups, title: form.title, version: form.version, id: form.id };
    const other = compileTemplate(reordered);
    expect(compileTemplate(storedCopy(reordered))).toBe(other);
    expect(compileTemplate(storedCopy(form))).toBe(compiled);
  });

  it.each([
    [
      'a changed question under the same id and version',
      (form: QuestionnaireTemplate) => ({
        ...form,
        groups: [{ ...form.groups[0]!, items: [item('a', 'string', { required: false })] }],
      }),
    ],
    ['a new version', (form: QuestionnaireTemplate) => ({ ...form, version: '2' })],
  ])('compiles %s afresh', (_label, change) => {
    const form = fresh();
    const compiled = compileTemplate(form);
    const changed = change(storedCopy(form));
    const recompiled = compileTemplate(changed);
    expect(recompiled).not.toBe(compiled);
    expect(recompiled.items[0]?.required).toBe(changed.groups[0]?.items[0]?.required);
  });

  it('drops the least recently used version beyond its bound', () => {
    const first = fresh();
    const compiled = compileTemplate(first);
    for (let i = 0; i < COMPILED_TEMPLATE_CACHE_SIZE; i += 1) compileTemplate(fresh());
    expect(compileTemplate(storedCopy(first))).not.toBe(compiled);
  });
});

describe('compileDocumentRequirements', () => {
  const requirements = (): DocumentRequirement[] => [
    {
      type: 'clinical_notes',
      label: 'Notes',
      message: 'Attach notes.',
      requiredWhen: { linkId: 'a', operator: 'exists', exists: true },
    },
  ];

  it('compiles an array it was just given once, and keeps only the last array per template', () => {
    const compiled = compileTemplate(fresh());
    const first = requirements();
    const once = compileDocumentRequirements(compiled, first);
    expect(compileDocumentRequirements(compiled, first)).toBe(once);
    // An equal array is another case's: compiled on its own, and then the first one is compiled anew.
    const other = compileDocumentRequirements(compiled, requirements());
    expect(other).not.toBe(once);
    expect(other.map((entry) => entry.requirement)).toEqual(first);
    const again = compileDocumentRequirements(compiled, first);
    expect(again).not.toBe(once);
    expect(again.map((entry) => entry.requirement)).toEqual(first);
  });
});
