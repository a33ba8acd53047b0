import { type Environment } from '../shared/scope';

export type AggregateType = 'authorization' | 'file' | 'manual_handoff';

/** A domain event as recorded with the change that produced it; ids and codes only, never PHI. */
export interface DomainEventEnvelope {
  id: string;
  type: string;
  aggregateType: AggregateType;
  aggregateId: string;
  organizationId: string;
  environment: Environment;
  occurredAt: Date;
  payload: Record<string, unknown>;
}

/**
 * The record of what happened to an aggregate: events are appended in the same transaction as the change that
 * produced them, so one exists exactly when its change committed. What integrators see is the separate
 * `ResourceEventLog` (docs/decisions/0031-events-and-webhooks.md).
 */
export interface DomainEventLog {
  append(events: DomainEventEnvelope[]): Promise<void>;
}
