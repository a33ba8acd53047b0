import { DomainError } from '../shared/domain-error';
import type { Environment } from '../shared/scope';
import type { ResourceEvent } from '../events/resource-event';

/** How long a replaced secret keeps signing after a rotation (issue 16: a 24-hour overlap). */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** `*` subscribes to every event type. */
export const ALL_EVENTS = '*';

export interface WebhookSecret {
  /** Encrypted by the WebhookSecretVault; never stored in clear. */
  sealed: string;
  createdAt: Date;
  /** Null for the current secret; set when a rotation replaced it. */
  expiresAt: Date | null;
}

export interface WebhookEndpointState {
  id: string;
  organizationId: string;
  environment: Environment;
  url: string;
  description: string | null;
  enabledEvents: string[];
  disabled: boolean;
  /**
   * The API version its deliveries are rendered in (docs/decisions/0037-webhook-versions-attempts-and-request-schemas.md).
   * Opaque here: the API checks it against its list of versions.
   */
  apiVersion: string;
  /** The current secret first, then replaced ones still inside their overlap. */
  secrets: WebhookSecret[];
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

export interface CreateWebhookEndpointInput {
  id: string;
  organizationId: string;
  environment: Environment;
  url: string;
  description: string | null;
  enabledEvents: string[];
  apiVersion: string;
  sealedSecret: string;
}

export interface WebhookEndpointPatch {
  url?: string;
  enabledEvents?: string[];
  disabled?: boolean;
  description?: string | null;
  apiVersion?: string;
}

const copy = (s: WebhookEndpointState): WebhookEndpointState => ({
  ...s,
  enabledEvents: [...s.enabledEvents],
  secrets: s.secrets.map((secret) => ({ ...secret })),
});

const normalizeEvents = (events: string[]): string[] => {
  if (events.length === 0) {
    throw new DomainError('webhook_endpoint_invalid', 'enabledEvents must name at least one event type.');
  }
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)];
};

/** A URL of one organization and environment that receives its events, signed with the endpoint's secret. */
export class WebhookEndpoint {
  private constructor(
    private s: WebhookEndpointState,
    private persisted: number | null,
  ) {}

  static create(input: CreateWebhookEndpointInput, now: Date): WebhookEndpoint {
    return new WebhookEndpoint(
      {
        id: input.id,
        organizationId: input.organizationId,
        environment: input.environment,
        url: input.url,
        description: input.description,
        enabledEvents: normalizeEvents(input.enabledEvents),
        disabled: false,
        apiVersion: input.apiVersion,
        secrets: [{ sealed: input.sealedSecret, createdAt: new Date(now), expiresAt: null }],
        createdAt: new Date(now),
        updatedAt: new Date(now),
        version: 1,
      },
      null,
    );
  }

  static rehydrate(state: WebhookEndpointState): WebhookEndpoint {
    return new WebhookEndpoint(copy(state), state.version);
  }

  get id(): string {
    return this.s.id;
  }
  get organizationId(): string {
    return this.s.organizationId;
  }
  get environment(): Environment {
    return this.s.environment;
  }
  get url(): string {
    return this.s.url;
  }
  get version(): number {
    return this.s.version;
  }
  get apiVersion(): string {
    return this.s.apiVersion;
  }
  get persistedVersion(): number | null {
    return this.persisted;
  }

  markPersisted(): void {
    this.persisted = this.s.version;
  }

  toState(): WebhookEndpointState {
    return copy(this.s);
  }

  /** Whether an event of `type` is sent to this endpoint. */
  receives(type: string): boolean {
    return (
      !this.s.disabled && (this.s.enabledEvents.includes(ALL_EVENTS) || this.s.enabledEvents.includes(type))
    );
  }

  /** The secrets that sign a delivery at `now`: the current one and any replaced one still in its overlap. */
  signingSecrets(now: Date): string[] {
    return this.s.secrets
      .filter((secret) => secret.expiresAt === null || secret.expiresAt.getTime() > now.getTime())
      .map((secret) => secret.sealed);
  }

  update(patch: WebhookEndpointPatch, now: Date): void {
    const next = copy(this.s);
    if (patch.url !== undefined) next.url = patch.url;
    if (patch.enabledEvents !== undefined) next.enabledEvents = normalizeEvents(patch.enabledEvents);
    if (patch.disabled !== undefined) next.disabled = patch.disabled;
    if (patch.description !== undefined) next.description = patch.description;
    if (patch.apiVersion !== undefined) next.apiVersion = patch.apiVersion;
    this.bump(next, now);
  }

  /** A new current secret; the previous one keeps signing for SECRET_ROTATION_OVERLAP_MS. */
  rotateSecret(sealedSecret: string, now: Date): void {
    const next = copy(this.s);
    const overlapEnd = new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS);
    next.secrets = [
      { sealed: sealedSecret, createdAt: new Date(now), expiresAt: null },
      ...next.secrets
        .filter((secret) => secret.expiresAt === null || secret.expiresAt.getTime() > now.getTime())
        .map((secret) => ({ ...secret, expiresAt: secret.expiresAt ?? overlapEnd })),
    ];
    this.bump(next, now);
  }

  private bump(next: WebhookEndpointState, now: Date): void {
    next.version = this.s.version + 1;
    next.updatedAt = new Date(now);
    this.s = next;
  }
}

/**
 * An event about an endpoint (docs/decisions/0031-events-and-webhooks.md): `webhook_endpoint.test` (sent to
 * that endpoint only) or `webhook_endpoint.disabled`. Its snapshot never holds the secrets.
 */
export function webhookEndpointEvent(
  id: string,
  endpoint: WebhookEndpointState,
  type: 'webhook_endpoint.test' | 'webhook_endpoint.disabled',
  at: Date,
): ResourceEvent {
  return {
    id,
    type,
    organizationId: endpoint.organizationId,
    environment: endpoint.environment,
    authorizationId: null,
    createdAt: new Date(at.getTime()),
    snapshot: {
      kind: 'webhook_endpoint',
      endpoint: {
        id: endpoint.id,
        url: endpoint.url,
        description: endpoint.description,
        enabledEvents: [...endpoint.enabledEvents],
        disabled: endpoint.disabled,
        apiVersion: endpoint.apiVersion,
        version: endpoint.version,
        createdAt: new Date(endpoint.createdAt.getTime()),
        updatedAt: new Date(endpoint.updatedAt.getTime()),
      },
    },
  };
}
