/**
 * JSON with object keys sorted at every level, so two bodies that differ only in key order or whitespace have
 * the same text (used for idempotency fingerprints). Values come from JSON.parse, so there is no undefined,
 * function or cycle to handle.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(',')}}`;
}
