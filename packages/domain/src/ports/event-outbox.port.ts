import { type Environment } from '../shared/scope';

export type AggregateType = 'authorization' | 'file' | 'manual_handoff';

/** A domain event as stored for later delivery; ids and codes only, never PHI. */
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

/** Events are appended in the same transaction as the aggregate change that produced them. */
export interface EventOutbox {
  append(events: DomainEventEnvelope[]): Promise<void>;
}
