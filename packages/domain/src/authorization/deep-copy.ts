/** Documents frozen all the way down by `freezeShared`: nobody can change them, so copies may share them. */
const shared = new WeakSet<object>();

/**
 * Freezes plain data all the way down and marks it shared: `deepCopy` then hands it out as it is instead of
 * copying it. For documents many cases hold unchanged (a route version's questionnaire template): one object
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
 * never mutate private state; `structuredClone` is not available without DOM or Node typings. Shared frozen
 * documents (`freezeShared`) are not copied.
 */
export const deepCopy = <T>(value: T): T => {
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (value === null || typeof value !== 'object' || shared.has(value)) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => deepCopy(v)) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) copy[key] = deepCopy(v);
  return copy as T;
};

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
