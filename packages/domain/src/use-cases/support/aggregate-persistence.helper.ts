import { type Authorization } from '../../authorization/authorization.aggregate';
import { type File } from '../../file/file.aggregate';
import { type ManualHandoff } from '../../manual-handoff/manual-handoff.aggregate';
import { type AggregateType, type DomainEventEnvelope } from '../../ports/event-outbox.port';
import { type IdGenerator } from '../../ports/id-generator.port';
import { type TransactionalPorts } from '../../ports/unit-of-work.port';

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

/** Save, then move the recorded events into the outbox of the same transaction. */
export async function saveAuthorization(
  tx: TransactionalPorts,
  ids: IdGenerator,
  aggregate: Authorization,
): Promise<void> {
  await tx.authorizations.save(aggregate);
  await appendEvents(tx, toEnvelopes(ids, 'authorization', aggregate, aggregate.pullEvents()));
}

export async function saveFile(tx: TransactionalPorts, ids: IdGenerator, aggregate: File): Promise<void> {
  await tx.files.save(aggregate);
  await appendEvents(tx, toEnvelopes(ids, 'file', aggregate, aggregate.pullEvents()));
}

export async function saveManualHandoff(
  tx: TransactionalPorts,
  ids: IdGenerator,
  aggregate: ManualHandoff,
): Promise<void> {
  await tx.manualHandoffs.save(aggregate);
  await appendEvents(tx, toEnvelopes(ids, 'manual_handoff', aggregate, aggregate.pullEvents()));
}

const appendEvents = async (tx: TransactionalPorts, envelopes: DomainEventEnvelope[]): Promise<void> => {
  if (envelopes.length > 0) await tx.outbox.append(envelopes);
};
