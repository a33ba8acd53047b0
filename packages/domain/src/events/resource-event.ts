import type { Authorization } from '../authorization/authorization.aggregate';
import type { AuthorizationEvent } from '../authorization/authorization.events';
import {
  AUTHORIZATION_STATUSES,
  type AuthorizationState,
  type AuthorizationStatus,
} from '../authorization/authorization.types';
import type { File, FileState } from '../file/file.aggregate';
import type { ManualHandoff, ManualHandoffState } from '../manual-handoff/manual-handoff.aggregate';
import type { Environment } from '../shared/scope';

/*
 * The events integrators read and receive (docs/decisions/0031-events-and-webhooks.md). Unlike the internal
 * domain events (ids and codes only, recorded in the audit log), each carries a snapshot of the resource as it
 * was when the event happened, so the API can render it in the caller's version later: versions are
 * presentation, the snapshot is the stored state.
 */

export const RESOURCE_EVENT_TYPES = [
  'authorization.created',
  'authorization.updated',
  ...AUTHORIZATION_STATUSES.map((status) => `authorization.${status}` as const),
  'authorization.decision_overdue',
  'manual_handoff.created',
  'manual_handoff.closed',
  'file.ready',
  'webhook_endpoint.disabled',
  'webhook_endpoint.test',
] as const;

export type ResourceEventType = (typeof RESOURCE_EVENT_TYPES)[number];

export const isResourceEventType = (value: string): value is ResourceEventType =>
  (RESOURCE_EVENT_TYPES as readonly string[]).includes(value);

/** The case a handoff belongs to, as its presentation names it. */
export interface AuthorizationRef {
  id: string;
  version: number;
  status: AuthorizationStatus;
}

export type ResourceSnapshot =
  | { kind: 'authorization'; state: AuthorizationState }
  | { kind: 'manual_handoff'; state: ManualHandoffState; authorization: AuthorizationRef }
  | { kind: 'file'; state: FileState }
  | { kind: 'webhook_endpoint'; endpoint: WebhookEndpointSnapshot };

/** A webhook endpoint as its events carry it: never its secrets. */
export interface WebhookEndpointSnapshot {
  id: string;
  url: string;
  description: string | null;
  enabledEvents: string[];
  disabled: boolean;
  apiVersion: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ResourceEvent {
  id: string;
  type: ResourceEventType;
  organizationId: string;
  environment: Environment;
  /** The case the event is about; null for events of resources outside a case (files). */
  authorizationId: string | null;
  createdAt: Date;
  snapshot: ResourceSnapshot;
}

type NewId = (prefix: 'evt') => string;

const base = (newId: NewId, aggregate: { organizationId: string; environment: Environment }, at: Date) => ({
  id: newId('evt'),
  organizationId: aggregate.organizationId,
  environment: aggregate.environment,
  createdAt: new Date(at.getTime()),
});

/**
 * The events of one save of a case, from the domain events it recorded: `authorization.created` and the
 * status it starts in, or `authorization.updated` for the new version, then one event per status entered.
 * Every event of one save carries the state saved: the case's own state, not a copy, since they go straight
 * to `ResourceEventLog.append`, which reads them at once and keeps none of them (its contract). A copy of a
 * case's state for each save cost about 3 % of a create's time in the API (docs/performance.md).
 */
export function authorizationResourceEvents(
  newId: NewId,
  authorization: Authorization,
  recorded: readonly AuthorizationEvent[],
): ResourceEvent[] {
  if (recorded.length === 0) return [];
  const state = authorization.readState();
  const snapshot: ResourceSnapshot = { kind: 'authorization', state };
  const at = recorded[recorded.length - 1]!.occurredAt;
  // Members added to the fresh base rather than after a spread of it: V8 gives a literal that begins with a
  // spread and adds members a new hidden class on every call (docs/performance.md, twentieth round).
  const event = (type: ResourceEventType): ResourceEvent =>
    Object.assign(base(newId, state, at), { type, authorizationId: state.id, snapshot });
  const created = recorded.find((e) => e.type === 'authorization.created');
  const events: ResourceEvent[] = [];
  if (created !== undefined) {
    events.push(event('authorization.created'));
    events.push(event(`authorization.${created.status}`));
  } else {
    events.push(event('authorization.updated'));
  }
  for (const e of recorded) {
    if (e.type === 'authorization.status_changed') events.push(event(`authorization.${e.to}`));
  }
  return events;
}

/** `authorization.decision_overdue`: the case as it is now (no new version). */
export function decisionOverdueEvent(newId: NewId, authorization: Authorization, now: Date): ResourceEvent {
  const state = authorization.toState();
  return Object.assign(base(newId, state, now), {
    type: 'authorization.decision_overdue' as const,
    authorizationId: state.id,
    snapshot: { kind: 'authorization' as const, state },
  });
}

export function manualHandoffResourceEvents(
  newId: NewId,
  handoff: ManualHandoff,
  authorization: AuthorizationRef,
  recorded: ReadonlyArray<{ type: string; occurredAt: Date }>,
): ResourceEvent[] {
  const state = handoff.toState();
  return recorded.flatMap((e): ResourceEvent[] => {
    const type =
      e.type === 'manual_handoff.offered'
        ? 'manual_handoff.created'
        : e.type === 'manual_handoff.closed'
          ? 'manual_handoff.closed'
          : null;
    if (type === null) return [];
    return [
      {
        ...base(newId, state, e.occurredAt),
        type,
        authorizationId: state.authorizationId,
        snapshot: { kind: 'manual_handoff', state, authorization: { ...authorization } },
      },
    ];
  });
}

export function fileResourceEvents(
  newId: NewId,
  file: File,
  recorded: ReadonlyArray<{ type: string; occurredAt: Date }>,
): ResourceEvent[] {
  const state = file.toState();
  return recorded
    .filter((e) => e.type === 'file.ready')
    .map((e) => ({
      ...base(newId, state, e.occurredAt),
      type: 'file.ready' as const,
      authorizationId: null,
      snapshot: { kind: 'file' as const, state },
    }));
}
