import type {
  QuestionnaireTemplate,
  ResourceEvent,
  ResourceEventType,
  ResourceSnapshot,
} from '@prior-auth/domain';
import { questionnaireFromText, storedQuestionnaire } from '../authorization/questionnaire-text-cache';
import { jsonText, rememberedJson } from '../unit-of-work/sql';
import type { ReadableEventRow, ResourceEventRow } from './resource-event.entity';

/*
 * A snapshot is a resource's state: plain data with Dates in it. JSON has no dates, so each Date is stored
 * as `{"$date": "<ISO>"}` and revived on read; everything else is stored as it is.
 */
const DATE_TAG = '$date';

/*
 * A case's questionnaire that is a stored catalog template (decision 0059) is not written into the snapshot:
 * `{"$questionnaire": "<id>"}` stands for it, the row names the document (`snapshot_questionnaire_id`), and a
 * read puts the document back (decision 0060).
 */
const QUESTIONNAIRE_TAG = '$questionnaire';

/** A snapshot as an event row stores it. */
export interface EncodedSnapshot {
  /** Its JSON text, as a JSON parameter (`jsonText`). */
  json: object;
  /** The stored questionnaire its text points at, or null when it points at none. */
  questionnaireId: string | null;
}

/**
 * The snapshot's JSON text. Written by `JSON.stringify` in one pass, splicing in the text of documents whose
 * JSON is already known instead of serializing them again (docs/performance.md), and pointing at a stored
 * questionnaire instead of writing it (decision 0060).
 */
export function encodeSnapshot(value: unknown): EncodedSnapshot {
  const reference = new QuestionnaireReference();
  const text = snapshotJson(value, reference);
  return { json: jsonText(text ?? 'null'), questionnaireId: reference.id };
}

/** The one stored questionnaire a snapshot points at: the first met (a case has one questionnaire). */
class QuestionnaireReference {
  id: string | null = null;

  /** The tag standing for `value`, when it is the stored questionnaire this snapshot points at. */
  tagFor(value: object): { [QUESTIONNAIRE_TAG]: string } | undefined {
    const stored = storedQuestionnaire(value as QuestionnaireTemplate);
    if (stored === null || (this.id !== null && this.id !== stored.id)) return undefined;
    this.id = stored.id;
    return { [QUESTIONNAIRE_TAG]: stored.id };
  }
}

/**
 * Each known document is first written as a placeholder string, `"\u0000<n>"`, then replaced by its text.
 * The placeholders are counted back: when a string of the state itself reads like one, the count is off and the
 * snapshot is written again without placeholders, so a state's own text can never be mistaken for one.
 */
const PLACEHOLDER = /"\\u0000(\d+)"/g;

function snapshotJson(value: unknown, reference: QuestionnaireReference): string | undefined {
  const known: string[] = [];
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key: string, member: unknown) {
    const raw = this[key];
    if (raw instanceof Date) return { [DATE_TAG]: member };
    if (raw !== null && typeof raw === 'object') {
      const tag = reference.tagFor(raw);
      if (tag !== undefined) return tag;
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
  return found === known.length ? spliced : plainSnapshotJson(value, reference);
}

/** The snapshot's JSON written member by member: for the rare state with text that reads like a placeholder. */
function plainSnapshotJson(value: unknown, reference: QuestionnaireReference): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (value instanceof Date) return `{"${DATE_TAG}":${JSON.stringify(value.toISOString())}}`;
  const tag = reference.tagFor(value);
  if (tag !== undefined) return JSON.stringify(tag);
  const known = rememberedJson(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    return `[${value.map((item) => plainSnapshotJson(item, reference) ?? 'null').join(',')}]`;
  }
  const members: string[] = [];
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const json = plainSnapshotJson(member, reference);
    if (json !== undefined) members.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${members.join(',')}}`;
}

/** The stored questionnaire a snapshot points at, as its row was read: its id and its JSON text. */
export interface SnapshotQuestionnaire {
  id: string;
  text: string;
}

/**
 * The snapshot as it was encoded: dates revived, and the stored questionnaire it points at put back, the one
 * shared object for its text (`questionnaireFromText`). A tag naming another document than the row's is the
 * state's own data and stays as it is.
 */
export function decodeSnapshot(value: unknown, questionnaire: SnapshotQuestionnaire | null = null): unknown {
  if (Array.isArray(value)) return value.map((item) => decodeSnapshot(item, questionnaire));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const [first] = entries;
    if (entries.length === 1 && first !== undefined && typeof first[1] === 'string') {
      if (first[0] === DATE_TAG) return new Date(first[1]);
      if (first[0] === QUESTIONNAIRE_TAG && questionnaire !== null && first[1] === questionnaire.id) {
        return questionnaireFromText(questionnaire.text, questionnaire.id);
      }
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, decodeSnapshot(v, questionnaire)]));
  }
  return value;
}

/**
 * `snapshot`: the event's snapshot already encoded, or `{ heldBy }`, the id of the event of the same save that
 * holds it (decision 0049).
 */
export const toResourceEventRow = (
  event: ResourceEvent,
  snapshot: EncodedSnapshot | { heldBy: string } = encodeSnapshot(event.snapshot),
): Omit<ResourceEventRow, 'sequence'> => ({
  id: event.id,
  organization_id: event.organizationId,
  environment: event.environment,
  type: event.type,
  authorization_id: event.authorizationId,
  created_at: event.createdAt,
  ...('heldBy' in snapshot
    ? { snapshot: null, snapshot_event_id: snapshot.heldBy, snapshot_questionnaire_id: null }
    : {
        snapshot: snapshot.json,
        snapshot_event_id: null,
        snapshot_questionnaire_id: snapshot.questionnaireId,
      }),
});

/** An event from a row read through `READABLE_EVENTS`. */
export const toResourceEvent = (row: ReadableEventRow): ResourceEvent => ({
  id: row.id,
  type: row.type as ResourceEventType,
  organizationId: row.organization_id,
  environment: row.environment,
  authorizationId: row.authorization_id,
  createdAt: row.created_at,
  snapshot: decodeSnapshot(row.snapshot, snapshotQuestionnaire(row)) as ResourceSnapshot,
});

function snapshotQuestionnaire(row: ReadableEventRow): SnapshotQuestionnaire | null {
  if (row.snapshot_questionnaire_id === null) return null;
  if (row.snapshot_questionnaire === null) {
    // The foreign key keeps the document while a row points at it: a read without it read it wrongly.
    throw new Error(
      `event ${row.id} points at questionnaire ${row.snapshot_questionnaire_id}, not read with it`,
    );
  }
  return { id: row.snapshot_questionnaire_id, text: row.snapshot_questionnaire };
}
