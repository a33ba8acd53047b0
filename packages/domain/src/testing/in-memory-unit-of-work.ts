import { Authorization } from '../authorization/authorization.aggregate';
import { type AuthorizationState } from '../authorization/authorization.types';
import { copySharing } from '../authorization/deep-copy';
import { File, type FileState } from '../file/file.aggregate';
import { ManualHandoff, type ManualHandoffState } from '../manual-handoff/manual-handoff.aggregate';
import { type AuthorizationListQuery, type Page } from '../ports/authorization.repository.port';
import { type DomainEventEnvelope } from '../ports/domain-event-log.port';
import { type ResourceEvent } from '../events/resource-event';
import { WebhookEndpoint, type WebhookEndpointState } from '../webhooks/webhook-endpoint.aggregate';
import { type Job } from '../ports/job-queue.port';
import { type PayerEvidenceRecord } from '../ports/payer-evidence.repository.port';
import { type GrantIssuer } from '../ports/grant-issuer.port';
import { type TransactionalPorts, type UnitOfWork } from '../ports/unit-of-work.port';
import { VersionConflictError } from '../shared/domain-error';
import { FakeGrantIssuer } from './fake-grant-issuer';
import { type TenantScope } from '../shared/scope';

interface Versioned {
  id: string;
  version: number;
  createdAt: Date;
}

/** One tenant's committed data. States are stored as copies and rehydrated on every read. */
class TenantData {
  readonly authorizations = new Map<string, AuthorizationState>();
  readonly files = new Map<string, FileState>();
  readonly manualHandoffs = new Map<string, ManualHandoffState>();
  readonly webhookEndpoints = new Map<string, WebhookEndpointState>();
  readonly domainEvents: DomainEventEnvelope[] = [];
  readonly jobs: Job[] = [];
  readonly payerEvidence: PayerEvidenceRecord[] = [];
  readonly events: ResourceEvent[] = [];
}

type TableName = 'authorizations' | 'files' | 'manualHandoffs' | 'webhookEndpoints';

interface PendingWrite {
  table: TableName;
  state: Versioned;
  /** null: insert. */
  expectedVersion: number | null;
}

const scopeKey = (scope: TenantScope): string => `${scope.organizationId}|${scope.environment}`;

/**
 * An in-memory UnitOfWork with the semantics the real one must have: repositories bound to one tenant,
 * optimistic version checks on save and again at commit (so two overlapping transactions cannot both win),
 * and all-or-nothing commits (a throwing `work` leaves no trace: no rows, events or jobs).
 */
export class InMemoryUnitOfWork implements UnitOfWork {
  private readonly tenants = new Map<string, TenantData>();
  /** Makes the next commit throw after `work` finished, to test that nothing half-written remains. */
  failNextCommit: Error | null = null;
  commits = 0;

  /** `grants`: the transaction's grant issuer (a fake records revocations whether or not the work commits). */
  constructor(private readonly grants: GrantIssuer = new FakeGrantIssuer()) {}

  tenant(scope: TenantScope): TenantData {
    let data = this.tenants.get(scopeKey(scope));
    if (data === undefined) {
      data = new TenantData();
      this.tenants.set(scopeKey(scope), data);
    }
    return data;
  }

  async run<T>(scope: TenantScope, work: (tx: TransactionalPorts) => Promise<T>): Promise<T> {
    const data = this.tenant(scope);
    const writes: PendingWrite[] = [];
    const events: DomainEventEnvelope[] = [];
    const jobs: Job[] = [];
    const evidence: PayerEvidenceRecord[] = [];
    const resourceEvents: ResourceEvent[] = [];
    const deleted: string[] = [];
    const pendingVersion = (table: TableName, id: string): number | undefined =>
      [...writes].reverse().find((w) => w.table === table && w.state.id === id)?.state.version ??
      data[table].get(id)?.version;
    const read = <S extends Versioned>(table: TableName, id: string): S | undefined => {
      const pending = [...writes].reverse().find((w) => w.table === table && w.state.id === id);
      return (pending?.state ?? data[table].get(id)) as S | undefined;
    };
    const allOf = <S extends Versioned>(table: TableName): S[] => {
      const merged = new Map<string, Versioned>(data[table]);
      for (const w of writes) if (w.table === table) merged.set(w.state.id, w.state);
      return [...merged.values()] as S[];
    };
    const listedAuthorizations = (query: AuthorizationListQuery) =>
      allOf<AuthorizationState>('authorizations').filter(
        (s) =>
          (query.status === undefined || s.status === query.status) &&
          (query.decisionOverdueAt === undefined ||
            (s.status === 'waiting_on_payer' &&
              s.decisionDueAt !== null &&
              s.decisionDueAt < query.decisionOverdueAt)),
      );
    const save = (
      table: TableName,
      aggregate: { persistedVersion: number | null; markPersisted(): void },
      state: Versioned,
    ): void => {
      const current = pendingVersion(table, state.id);
      const expected = aggregate.persistedVersion;
      if (expected === null ? current !== undefined : current !== expected) {
        throw new VersionConflictError(expected ?? 0, current ?? 0);
      }
      writes.push({ table, state, expectedVersion: expected });
      aggregate.markPersisted();
    };

    const tx: TransactionalPorts = {
      authorizations: {
        findById: async (id) => {
          const state = read<AuthorizationState>('authorizations', id);
          return state === undefined ? null : Authorization.rehydrate(state);
        },
        findIfChanged: async (id, knownVersion) => {
          const state = read<AuthorizationState>('authorizations', id);
          if (state === undefined) return null;
          if (state.version === knownVersion) return { unchanged: true, id, version: knownVersion };
          return Authorization.rehydrate(state);
        },
        save: async (authorization) => save('authorizations', authorization, authorization.toState()),
        list: async (query: AuthorizationListQuery) =>
          page(listedAuthorizations(query), query, Authorization.rehydrate),
        listVersions: async (query: AuthorizationListQuery) =>
          page(listedAuthorizations(query), query, ({ id, version }) => ({ id, version })),
        findVersions: async (versions) =>
          versions.flatMap(({ id, version }) => {
            const state = read<AuthorizationState>('authorizations', id);
            return state?.version === version ? [Authorization.rehydrate(state)] : [];
          }),
      },
      files: {
        findById: async (id) => {
          const state = read<FileState>('files', id);
          return state === undefined ? null : File.rehydrate(state);
        },
        save: async (file) => save('files', file, file.toState()),
        list: async (query) => page(allOf<FileState>('files'), query, File.rehydrate),
      },
      manualHandoffs: {
        findById: async (id) => {
          const state = read<ManualHandoffState>('manualHandoffs', id);
          return state === undefined ? null : ManualHandoff.rehydrate(state);
        },
        listByAuthorization: async (authorizationId) =>
          allOf<ManualHandoffState>('manualHandoffs')
            .filter((s) => s.authorizationId === authorizationId)
            .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id))
            .map(ManualHandoff.rehydrate),
        findOpenByInteraction: async (authorizationId, interactionActionId) => {
          const owner = allOf<ManualHandoffState>('manualHandoffs')
            .map(ManualHandoff.rehydrate)
            .find(
              (h) =>
                h.authorizationId === authorizationId &&
                h.interactionActionId === interactionActionId &&
                h.ownsInteraction,
            );
          return owner ?? null;
        },
        save: async (handoff) => save('manualHandoffs', handoff, handoff.toState()),
      },
      payerEvidence: {
        add: async (records) => void evidence.push(...records.map((r) => ({ ...r }))),
        listByAuthorization: async (authorizationId) =>
          [...data.payerEvidence, ...evidence]
            .filter((r) => r.authorizationId === authorizationId)
            .sort((a, b) => a.capturedAt.getTime() - b.capturedAt.getTime())
            .map((r) => ({ ...r })),
      },
      domainEvents: { append: async (appended) => void events.push(...appended) },
      webhookEndpoints: {
        findById: async (id) => {
          const state = read<WebhookEndpointState>('webhookEndpoints', id);
          return state === undefined ? null : WebhookEndpoint.rehydrate(state);
        },
        list: async (query) =>
          page(allOf<WebhookEndpointState>('webhookEndpoints'), query, WebhookEndpoint.rehydrate),
        save: async (endpoint) => save('webhookEndpoints', endpoint, endpoint.toState()),
        delete: async (id) => {
          if (read<WebhookEndpointState>('webhookEndpoints', id) === undefined) return false;
          deleted.push(id);
          return true;
        },
      },
      events: {
        // As a real log stores them: read now, so later changes to an aggregate do not reach them.
        append: async (appended) =>
          void resourceEvents.push(
            ...appended.map((event) => ({ ...event, snapshot: copySharing(event.snapshot) })),
          ),
        list: async (query) =>
          page(
            [...data.events, ...resourceEvents]
              .filter(
                (e) =>
                  (query.type === undefined || e.type === query.type) &&
                  (query.authorizationId === undefined || e.authorizationId === query.authorizationId),
              )
              .map((e) => ({ ...e, version: 0 })),
            query,
            ({ version: _version, ...e }) => e,
          ),
      },
      jobs: { enqueue: async (job) => void jobs.push({ ...job }) },
      grants: this.grants,
    };

    const result = await work(tx);

    if (this.failNextCommit !== null) {
      const error = this.failNextCommit;
      this.failNextCommit = null;
      throw error;
    }
    // Commit: re-check against what is committed now, then apply everything at once.
    const firstWrites = new Map<string, PendingWrite>();
    for (const w of writes)
      if (!firstWrites.has(`${w.table}/${w.state.id}`)) firstWrites.set(`${w.table}/${w.state.id}`, w);
    for (const w of firstWrites.values()) {
      const committed = data[w.table].get(w.state.id)?.version;
      if (w.expectedVersion === null ? committed !== undefined : committed !== w.expectedVersion) {
        throw new VersionConflictError(w.expectedVersion ?? 0, committed ?? 0);
      }
    }
    for (const w of writes) (data[w.table] as Map<string, Versioned>).set(w.state.id, w.state);
    data.domainEvents.push(...events);
    data.jobs.push(...jobs);
    data.payerEvidence.push(...evidence);
    data.events.push(...resourceEvents);
    for (const id of deleted) data.webhookEndpoints.delete(id);
    this.commits += 1;
    return result;
  }
}

/** Newest first (createdAt, then id); the cursor is the last id of the previous page. */
function page<S extends Versioned, A>(
  states: S[],
  query: { limit: number; cursor?: string },
  rehydrate: (state: S) => A,
): Page<A> {
  const sorted = [...states].sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id),
  );
  const start = query.cursor === undefined ? 0 : sorted.findIndex((s) => s.id === query.cursor) + 1;
  const items = sorted.slice(start, start + query.limit);
  const last = items[items.length - 1];
  const nextCursor = start + query.limit < sorted.length && last !== undefined ? last.id : null;
  return { items: items.map(rehydrate), nextCursor };
}
