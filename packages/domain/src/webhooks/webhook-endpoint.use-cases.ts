import type { Page } from '../ports/authorization.repository.port';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';
import { DomainError, VersionConflictError } from '../shared/domain-error';
import type { TenantScope } from '../shared/scope';
import type { ResourceEvent } from '../events/resource-event';
import {
  WebhookEndpoint,
  webhookEndpointEvent,
  type WebhookEndpointPatch,
} from './webhook-endpoint.aggregate';
import type { WebhookDeliveries, WebhookDeliveryView } from './webhook-deliveries.port';
import type { WebhookSecretVault } from './webhook-secret-vault.port';
import { assertWebhookUrlAllowed, type HostResolver } from './webhook-url.policy';

export interface WebhookEndpointDeps {
  unitOfWork: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
  secrets: WebhookSecretVault;
  hostResolver: HostResolver;
  /** The endpoints' deliveries (list, retry); absent where they are not served. */
  deliveries?: WebhookDeliveries;
}

/** An endpoint with the secret in clear: answered once, at creation or rotation, never stored that way. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

const notFound = (id: string) =>
  new DomainError('webhook_endpoint_not_found', 'No such webhook endpoint.', { webhookEndpointId: id });

/** Create, read, change, rotate and delete the tenant's webhook endpoints (docs/decisions/0031-events-and-webhooks.md). */
export class WebhookEndpointUseCases {
  constructor(private readonly deps: WebhookEndpointDeps) {}

  async create(
    scope: TenantScope,
    input: { url: string; enabledEvents: string[]; description: string | null; apiVersion: string },
  ): Promise<EndpointWithSecret> {
    await assertWebhookUrlAllowed(input.url, scope.environment, this.deps.hostResolver);
    const secret = this.deps.secrets.generate();
    const endpoint = WebhookEndpoint.create(
      {
        id: this.deps.ids.newId('we'),
        organizationId: scope.organizationId,
        environment: scope.environment,
        url: input.url,
        description: input.description,
        enabledEvents: input.enabledEvents,
        apiVersion: input.apiVersion,
        sealedSecret: this.deps.secrets.seal(secret),
      },
      this.deps.clock.now(),
    );
    await this.deps.unitOfWork.run(scope, (tx) => tx.webhookEndpoints.save(endpoint));
    return { endpoint, secret };
  }

  /**
   * Records a `webhook_endpoint.test` event, which fans out to this endpoint only (whatever it enabled), so a
   * developer sees a signed delivery arrive. The API serves it in the sandbox only.
   */
  sendTest(scope: TenantScope, id: string): Promise<ResourceEvent> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const endpoint = await tx.webhookEndpoints.findById(id);
      if (endpoint === null) throw notFound(id);
      const event = webhookEndpointEvent(
        this.deps.ids.newId('evt'),
        endpoint.toState(),
        'webhook_endpoint.test',
        this.deps.clock.now(),
      );
      await tx.events.append([event]);
      return event;
    });
  }

  /** The endpoint's deliveries, newest first, with their attempts. */
  async listDeliveries(
    scope: TenantScope,
    id: string,
    query: { limit: number; cursor?: string },
  ): Promise<Page<WebhookDeliveryView>> {
    await this.get(scope, id);
    return this.requireDeliveries().list(scope, id, query);
  }

  /** Sends a delivery again now, whatever its state (a pending one is sent at once). */
  async retryDelivery(scope: TenantScope, id: string, deliveryId: string): Promise<WebhookDeliveryView> {
    await this.get(scope, id);
    const delivery = await this.requireDeliveries().retry(scope, id, deliveryId, this.deps.clock.now());
    if (delivery === null) {
      throw new DomainError('webhook_delivery_not_found', 'No such delivery of this webhook endpoint.', {
        webhookEndpointId: id,
        deliveryId,
      });
    }
    return delivery;
  }

  private requireDeliveries(): WebhookDeliveries {
    if (this.deps.deliveries === undefined) throw new Error('webhook deliveries are not configured');
    return this.deps.deliveries;
  }

  get(scope: TenantScope, id: string): Promise<WebhookEndpoint> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const endpoint = await tx.webhookEndpoints.findById(id);
      if (endpoint === null) throw notFound(id);
      return endpoint;
    });
  }

  list(scope: TenantScope, query: { limit: number; cursor?: string }): Promise<Page<WebhookEndpoint>> {
    return this.deps.unitOfWork.run(scope, (tx) => tx.webhookEndpoints.list(query));
  }

  async update(
    scope: TenantScope,
    id: string,
    patch: WebhookEndpointPatch,
    expectedVersion: number | null,
  ): Promise<WebhookEndpoint> {
    if (patch.url !== undefined) {
      await assertWebhookUrlAllowed(patch.url, scope.environment, this.deps.hostResolver);
    }
    return this.change(scope, id, expectedVersion, (endpoint, now) => endpoint.update(patch, now));
  }

  async rotateSecret(scope: TenantScope, id: string): Promise<EndpointWithSecret> {
    const secret = this.deps.secrets.generate();
    const sealed = this.deps.secrets.seal(secret);
    const endpoint = await this.change(scope, id, null, (e, now) => e.rotateSecret(sealed, now));
    return { endpoint, secret };
  }

  delete(scope: TenantScope, id: string): Promise<void> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      if (!(await tx.webhookEndpoints.delete(id))) throw notFound(id);
    });
  }

  private change(
    scope: TenantScope,
    id: string,
    expectedVersion: number | null,
    apply: (endpoint: WebhookEndpoint, now: Date) => void,
  ): Promise<WebhookEndpoint> {
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const endpoint = await tx.webhookEndpoints.findById(id);
      if (endpoint === null) throw notFound(id);
      if (expectedVersion !== null && expectedVersion !== endpoint.version) {
        throw new VersionConflictError(expectedVersion, endpoint.version);
      }
      apply(endpoint, this.deps.clock.now());
      await tx.webhookEndpoints.save(endpoint);
      return endpoint;
    });
  }
}
