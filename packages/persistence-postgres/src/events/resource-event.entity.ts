import type { Environment } from '@prior-auth/domain';
import { EntitySchema } from 'typeorm';

/** A row of `events` (docs/decisions/0031-events-and-webhooks.md). */
export interface ResourceEventRow {
  /** Commit-order position (identity); only read, never written. */
  sequence: string;
  id: string;
  organization_id: string;
  environment: Environment;
  type: string;
  authorization_id: string | null;
  created_at: Date;
  /**
   * The resource snapshot, dates tagged (see resource-event.mapper); null when another event of the same save
   * holds it (decision 0049). Rows read through `READABLE_EVENTS` always have it.
   */
  snapshot: unknown;
  /** The event of the same save that holds this one's snapshot; null when this one holds its own. */
  snapshot_event_id: string | null;
  /**
   * The stored questionnaire (`questionnaire_documents`) the snapshot points at instead of holding it (decision
   * 0060); null when it points at none, and on a row whose snapshot another event holds.
   */
  snapshot_questionnaire_id: string | null;
}

/**
 * A row read through `READABLE_EVENTS`: its snapshot's, with the id and the JSON text of the stored
 * questionnaire it points at (null when none).
 */
export interface ReadableEventRow extends ResourceEventRow {
  snapshot_questionnaire: string | null;
}

/**
 * `events` as readers see it (`ReadableEventRow`): every row with its snapshot, its own or the one its save's
 * last event holds, and the stored questionnaire that snapshot points at. Use it in place of the table's name
 * in a `SELECT … FROM`; conditions and orderings name the columns as usual.
 */
export const READABLE_EVENTS = `(SELECT e.sequence, e.id, e.organization_id, e.environment, e.type,
    e.authorization_id, e.created_at, COALESCE(e.snapshot, held.snapshot) AS snapshot, e.snapshot_event_id,
    COALESCE(e.snapshot_questionnaire_id, held.snapshot_questionnaire_id) AS snapshot_questionnaire_id,
    q.document::text AS snapshot_questionnaire
  FROM events e LEFT JOIN events held ON held.id = e.snapshot_event_id
  LEFT JOIN questionnaire_documents q
    ON q.id = COALESCE(e.snapshot_questionnaire_id, held.snapshot_questionnaire_id)) events`;

export const ResourceEventEntity = new EntitySchema<ResourceEventRow>({
  name: 'resource_event',
  tableName: 'events',
  columns: {
    sequence: { type: 'bigint', primary: true, generated: 'increment' },
    id: { type: 'text' },
    organization_id: { type: 'text' },
    environment: { type: 'text' },
    type: { type: 'text' },
    authorization_id: { type: 'text', nullable: true },
    created_at: { type: 'timestamptz' },
    snapshot: { type: 'json', nullable: true },
    snapshot_event_id: { type: 'text', nullable: true },
    snapshot_questionnaire_id: { type: 'text', nullable: true },
  },
});
