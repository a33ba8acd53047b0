import type { ResourceEvent, ResourceEventType, ResourceSnapshot } from '@prior-auth/domain';
import { jsonText, rememberedJson } from '../unit-of-work/sql';
import type { ResourceEventRow } from './resource-event.entity';

/*
 * A snapshot is a resource's state: plain data with Dates in it. JSON has no dates, so each Date is stored
 * as `{"$date": "<ISO>"}` and revived on read; everything else is stored as it is.
 */
const DATE_TAG = '$date';

/**
 * The snapshot's JSON text, as a JSON parameter (`jsonText`). Written by `JSON.stringify` in one pass, splicing
 * in the text of documents whose JSON is already known (a case's shared questionnaire: the largest part of its
 * state) instead of serializing them again (docs/performance.md).
 */
export function encodeSnapshot(value: unknown): object {
  return jsonText(snapshotJson(value) ?? 'null');
}

/**
 * Each known document is first written as a placeholder string, `"\u0000<n>"`, then replaced by its text.
 * The placeholders are counted back: when a string of the state itself reads like one, the count is off and the
 * snapshot is written again without placeholders, so a state's own text can never be mistaken for one.
 */
const PLACEHOLDER = /"\\u0000(\d+)"/g;

function snapshotJson(value: unknown): string | undefined {
  const known: string[] = [];
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key: string, member: unknown) {
    const raw = this[key];
    if (raw instanceof Date) return { [DATE_TAG]: member };
    if (raw !== null && typeof raw === 'object') {
      const json = rememberedJson(raw);
      if (json !== undefined) return `\u0000${known.push(json) - 1}`;
    }
    return member;
  }) as string | undefined;
  if (known.length === 0 || text === undefined) return text;
  let found = 0;
  const spliced = text.replace(PLACEHOLDER, (placeholder, index: string) => {
    found += 1;
    return known[Number(index)] ?? placeholder;
  });
  return found === known.length ? spliced : plainSnapshotJson(value);
}

/** The snapshot's JSON written member by member: for the rare state with text that reads like a placeholder. */
function plainSnapshotJson(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (value instanceof Date) return `{"${DATE_TAG}":${JSON.stringify(value.toISOString())}}`;
  const known = rememberedJson(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) return `[${value.map((item) => plainSnapshotJson(item) ?? 'null').join(',')}]`;
  const members: string[] = [];
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const json = plainSnapshotJson(member);
    if (json !== undefined) members.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${members.join(',')}}`;
}

export function decodeSnapshot(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeSnapshot);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const [first] = entries;
    if (
      entries.length === 1 &&
      first !== undefined &&
      first[0] === DATE_TAG &&
      typeof first[1] === 'string'
    ) {
      return new Date(first[1]);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, decodeSnapshot(v)]));
  }
  return value;
}

/**
 * `snapshot`: the event's snapshot already encoded, or `{ heldBy }`, the id of the event of the same save that
 * holds it (decision 0049).
 */
export const toResourceEventRow = (
  event: ResourceEvent,
  snapshot: object | { heldBy: string } = encodeSnapshot(event.snapshot),
): Omit<ResourceEventRow, 'sequence'> => ({
  id: event.id,
  organization_id: event.organizationId,
  environment: event.environment,
  type: event.type,
  authorization_id: event.authorizationId,
  created_at: event.createdAt,
  ...('heldBy' in snapshot
    ? { snapshot: null, snapshot_event_id: snapshot.heldBy }
    : { snapshot, snapshot_event_id: null }),
});

export const toResourceEvent = (row: ResourceEventRow): ResourceEvent => ({
  id: row.id,
  type: row.type as ResourceEventType,
  organizationId: row.organization_id,
  environment: row.environment,
  authorizationId: row.authorization_id,
  createdAt: row.created_at,
  snapshot: decodeSnapshot(row.snapshot) as ResourceSnapshot,
});
