import type { ResourceEvent, ResourceEventType } from '../events/resource-event';
import type { Page } from './authorization.repository.port';

export interface ResourceEventQuery {
  type?: ResourceEventType;
  authorizationId?: string;
  /** 1–100; validated by the caller. */
  limit: number;
  /** Opaque cursor from a previous page of the same query. */
  cursor?: string;
}

/**
 * The events of ONE tenant (docs/decisions/0031-events-and-webhooks.md): appended in the transaction of the
 * change they describe, listed newest first.
 */
export interface ResourceEventLog {
  /**
   * Reads what it stores of the events before it returns, and keeps none of them: an event's snapshot may be
   * an aggregate's own state (`authorizationResourceEvents`), which changes with the aggregate afterwards.
   */
  append(events: ResourceEvent[]): Promise<void>;
  list(query: ResourceEventQuery): Promise<Page<ResourceEvent>>;
}
