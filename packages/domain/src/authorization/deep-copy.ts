/** Documents frozen all the way down by `freezeShared`: nobody can change them, so copies may share them. */
const shared = new WeakSet<object>();

/**
 * Freezes plain data all the way down and marks it shared: `copySharing` then hands it out as it is instead
 * of copying it. For documents many cases hold unchanged (a route version's questionnaire template): one object
 * instead of a copy per case, and caches keyed by identity find it (docs/performance.md). A change in place
 * fails loudly.
 */
export function freezeShared<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !shared.has(value)) {
    Object.freeze(value);
    for (const nested of Object.values(value as Record<string, unknown>)) freezeShared(nested);
    shared.add(value);
  }
  return value;
}

/** Whether `value` was frozen and shared by `freezeShared`. */
export const isShared = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && shared.has(value);

/**
 * Deep copy of plain data (objects, arrays, Dates, primitives). Aggregates hand out copies so callers can
 * never mutate private state; `structuredClone` is not available without DOM or Node typings. Everything is
 * copied, shared frozen documents too: the copy is the caller's to change.
 */
export const deepCopy = <T>(value: T): T => copy(value, false);

/**
 * As `deepCopy`, but a shared frozen document (`freezeShared`) inside is kept as it is instead of copied: for
 * copies that are only read or kept (a new case's questionnaire, an event's snapshot, the requirements
 * engine's inputs), where a copy of an immutable template is pure cost.
 */
export const copySharing = <T>(value: T): T => copy(value, true);

function copy<T>(value: T, sharing: boolean): T {
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (value === null || typeof value !== 'object') return value;
  if (sharing && shared.has(value)) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => copy(v, sharing)) as T;
  const result: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) result[key] = copy(v, sharing);
  return result as T;
}

/** Key-order-independent JSON, for comparing plain data structurally. */
export const canonicalJson = (value: unknown): string => {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};
