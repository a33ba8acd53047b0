import { type Authorization } from '../../authorization/authorization.aggregate';
import { type File } from '../../file/file.aggregate';
import { type ManualHandoff } from '../../manual-handoff/manual-handoff.aggregate';
import { type AggregateType, type DomainEventEnvelope } from '../../ports/domain-event-log.port';
import { type IdGenerator } from '../../ports/id-generator.port';
import { type TransactionalPorts } from '../../ports/unit-of-work.port';
import { WORKER_JOB_TYPES } from './worker-jobs';
import {
  authorizationResourceEvents,
  fileResourceEvents,
  manualHandoffResourceEvents,
  type ResourceEvent,
} from '../../events/resource-event';

interface RecordedEvent {
  type: string;
  occurredAt: Date;
}

/** Fields every envelope carries already; the rest of an event is its payload. */
const ENVELOPE_FIELDS = new Set(['type', 'occurredAt', 'authorizationId', 'organizationId', 'environment']);

const toEnvelopes = (
  ids: IdGenerator,
  aggregateType: AggregateType,
  aggregate: { id: string; organizationId: string; environment: DomainEventEnvelope['environment'] },
  events: readonly RecordedEvent[],
): DomainEventEnvelope[] =>
  events.map((event) => ({
    id: ids.newId('evt'),
    type: event.type,
    aggregateType,
    aggregateId: aggregate.id,
    organizationId: aggregate.organizationId,
    environment: aggregate.environment,
    occurredAt: event.occurredAt,
    payload: Object.fromEntries(Object.entries(event).filter(([key]) => !ENVELOPE_FIELDS.has(key))),
  }));

/** Save, then record the pulled events in the same transaction. */
export async function saveAuthorization(
  tx: TransactionalPorts,
  ids: IdGenerator,
  aggregate: Authorization,
): Promise<void> {
  await tx.authorizations.save(aggregate);
  const recorded = aggregate.pullEvents();
  await appendEvents(tx, toEnvelopes(ids, 'authorization', aggregate, recorded));
  await appendResourceEvents(tx, authorizationResourceEvents(newEventId(ids), aggregate, recorded));
  // Whatever recorded the receipt (the pipeline, a reconciliation, a manual handoff), the due date is checked
  // once it passes: a job at that time, not a poll per request.
  const dueAt = aggregate.decisionDueAt;
  if (dueAt !== null && recorded.some((e) => e.type === 'authorization.receipt_recorded')) {
    await tx.jobs.enqueue({
      type: WORKER_JOB_TYPES.decisionOverdue,
      authorizationId: aggregate.id,
      runAt: dueAt,
      payload: { decisionDueAt: dueAt.toISOString() },
    });
  }
}

export async function saveFile(tx: TransactionalPorts, ids: IdGenerator, aggregate: File): Promise<void> {
  await tx.files.save(aggregate);
  const recorded = aggregate.pullEvents();
  await appendEvents(tx, toEnvelopes(ids, 'file', aggregate, recorded));
  await appendResourceEvents(tx, fileResourceEvents(newEventId(ids), aggregate, recorded));
}

export async function saveManualHandoff(
  tx: TransactionalPorts,
  ids: IdGenerator,
  aggregate: ManualHandoff,
): Promise<void> {
  await tx.manualHandoffs.save(aggregate);
  const recorded = aggregate.pullEvents();
  await appendEvents(tx, toEnvelopes(ids, 'manual_handoff', aggregate, recorded));
  if (recorded.some((e) => e.type === 'manual_handoff.offered' || e.type === 'manual_handoff.closed')) {
    // The case as this transaction sees it (a use case that also changes the case may save it afterwards).
    const authorization = await tx.authorizations.findById(aggregate.authorizationId);
    if (authorization !== null) {
      const ref = { id: authorization.id, version: authorization.version, status: authorization.status };
      await appendResourceEvents(tx, manualHandoffResourceEvents(newEventId(ids), aggregate, ref, recorded));
    }
  }
}

const appendEvents = async (tx: TransactionalPorts, envelopes: DomainEventEnvelope[]): Promise<void> => {
  if (envelopes.length > 0) await tx.domainEvents.append(envelopes);
};

const newEventId = (ids: IdGenerator) => (prefix: 'evt') => ids.newId(prefix);

const appendResourceEvents = async (tx: TransactionalPorts, events: ResourceEvent[]): Promise<void> => {
  if (events.length > 0) await tx.events.append(events);
};
