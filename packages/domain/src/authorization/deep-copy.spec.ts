import { copySharing, deepCopy, freezeShared, isShared } from './deep-copy';

describe('deepCopy', () => {
  it('copies plain data all the way down, dates included', () => {
    const original = { a: [{ b: 1 }], at: new Date('2026-11-27T00:00:00.000Z'), n: null };
    const copy = deepCopy(original);
    expect(copy).toEqual(original);
    expect(copy.a).not.toBe(original.a);
    expect(copy.a[0]).not.toBe(original.a[0]);
    expect(copy.at).not.toBe(original.at);
  });

  it("copies a shared frozen document too: the copy is the caller's to change", () => {
    const template = freezeShared({ id: 'q', groups: [{ items: [{ linkId: 'a' }] }] });
    const copy = deepCopy(template);
    expect(copy).toEqual(template);
    copy.groups.push({ items: [] });
    expect(template.groups).toHaveLength(1);
  });
});

describe('copySharing', () => {
  it('keeps a shared frozen document as it is, and copies what holds it', () => {
    const template = freezeShared({ id: 'q', groups: [{ items: [{ linkId: 'a' }] }] });
    const state = { questionnaire: template, answers: [{ linkId: 'a' }], at: new Date(0) };
    const copy = copySharing(state);
    expect(copy).not.toBe(state);
    expect(copy.questionnaire).toBe(template);
    expect(copy.answers).not.toBe(state.answers);
    expect(copy.at).not.toBe(state.at);
    expect(copy).toEqual(state);
  });

  it('still copies an object frozen by other means: only freezeShared vouches for everything inside', () => {
    const shallow = Object.freeze({ nested: { value: 1 } });
    expect(isShared(shallow)).toBe(false);
    expect(copySharing(shallow).nested).not.toBe(shallow.nested);
  });
});

describe('freezeShared', () => {
  it('freezes every level, so a change in place fails loudly', () => {
    const template = freezeShared({ groups: [{ items: [{ linkId: 'a' }] }] });
    expect(isShared(template.groups[0]!.items[0])).toBe(true);
    expect(() => {
      (template.groups[0]!.items[0] as { linkId: string }).linkId = 'b';
    }).toThrow(TypeError);
    expect(() => (template.groups as unknown[]).push({})).toThrow(TypeError);
  });
});
