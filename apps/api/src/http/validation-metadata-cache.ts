import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Metadatas = ReturnType<Storage['getTargetValidationMetadatas']>;
type Grouped = ReturnType<Storage['groupByPropertyName']>;

const memoized = new WeakSet<Storage>();

/**
 * class-validator looks up a class's rules on every validation of every object of it (each nested answer of a
 * questionnaire response too) by scanning every decorated class of the process for ancestors, then groups them
 * by property again: a large part of validating a create (docs/performance.md). A class's rules are all
 * registered when it is defined, before anything can validate an object of it, and never change after, so the
 * lookup and the grouping are kept per class and per set of options, frozen so no caller can change them for
 * the next. The storage is read through its own methods; only their results are kept.
 */
export function memoizeValidationMetadata(storage: Storage = getMetadataStorage()): void {
  if (memoized.has(storage)) return;
  memoized.add(storage);
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const byTarget = new WeakMap<object, Map<string, Metadatas>>();
  const groupedBy = new WeakMap<Metadatas, Grouped>();
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let known = byTarget.get(target);
    if (known === undefined) {
      known = new Map();
      byTarget.set(target, known);
    }
    let metadatas = known.get(key);
    if (metadatas === undefined) {
      metadatas = Object.freeze(lookup(target, schema, always, strictGroups, groups)) as Metadatas;
      known.set(key, metadatas);
    }
    return metadatas;
  };
  storage.groupByPropertyName = (metadatas) => {
    let grouped = groupedBy.get(metadatas);
    if (grouped === undefined) {
      grouped = Object.freeze(group(metadatas));
      groupedBy.set(metadatas, grouped);
    }
    return grouped;
  };
}
