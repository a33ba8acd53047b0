import type { WebhookEndpointUseCases } from '@prior-auth/domain';
import type { Request, Response } from 'express';
import { presentEvent } from '@prior-auth/presentation';
import { apiVersionOf } from '../http/api-version.middleware';
import { HttpError } from '../http/http-error';
import { parseLimit } from '../http/pagination';
import { requiredIfMatch } from '../http/preconditions';
import { scopeOf } from '../http/request-context';
import { assertEmptyBody, validateInput } from '../http/validation';
import {
  presentWebhookDelivery,
  presentWebhookEndpoint,
  presentWebhookEndpointWithSecret,
  webhookEndpointEtag,
} from './webhook-endpoint.presenter';
import {
  CreateWebhookEndpointRequest,
  ListWebhookEndpointsQuery,
  UpdateWebhookEndpointRequest,
} from './webhook-endpoint.request';

const param = (req: Request, name: string): string => String(req.params[name]);

/**
 * `/v1/webhook-endpoints` (docs/decisions/0031-events-and-webhooks.md). Create and rotate-secret answer the
 * secret once; they take no Idempotency-Key, since a stored replay would keep the secret in clear. PATCH
 * checks If-Match when sent.
 */
export class WebhookEndpointController {
  constructor(private readonly useCases: WebhookEndpointUseCases) {}

  async create(req: Request, res: Response): Promise<void> {
    const body = validateInput(CreateWebhookEndpointRequest, req.body, 'body');
    const { endpoint, secret } = await this.useCases.create(scopeOf(req), {
      url: body.url,
      enabledEvents: body.enabledEvents,
      description: body.description ?? null,
      // Pinned at creation: the version asked for, else the one this request is answered in.
      apiVersion: body.apiVersion ?? apiVersionOf(req),
    });
    res
      .status(201)
      .setHeader('Location', `${req.baseUrl}/${endpoint.id}`)
      .setHeader('ETag', webhookEndpointEtag(endpoint))
      .json(presentWebhookEndpointWithSecret(endpoint, secret));
  }

  async list(req: Request, res: Response): Promise<void> {
    const query = validateInput(ListWebhookEndpointsQuery, req.query, 'query');
    const page = await this.useCases.list(scopeOf(req), {
      limit: parseLimit(query.limit),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    res.json({ data: page.items.map(presentWebhookEndpoint), pagination: { nextCursor: page.nextCursor } });
  }

  async retrieve(req: Request, res: Response): Promise<void> {
    const endpoint = await this.useCases.get(scopeOf(req), param(req, 'webhookEndpointId'));
    res.setHeader('ETag', webhookEndpointEtag(endpoint)).json(presentWebhookEndpoint(endpoint));
  }

  async update(req: Request, res: Response): Promise<void> {
    const expected = req.header('if-match') === undefined ? null : requiredIfMatch(req);
    const body = validateInput(UpdateWebhookEndpointRequest, req.body, 'body');
    const endpoint = await this.useCases.update(
      scopeOf(req),
      param(req, 'webhookEndpointId'),
      {
        ...(body.url === undefined ? {} : { url: body.url }),
        ...(body.enabledEvents === undefined ? {} : { enabledEvents: body.enabledEvents }),
        ...(body.disabled === undefined ? {} : { disabled: body.disabled }),
        ...(body.description === undefined ? {} : { description: body.description }),
        ...(body.apiVersion === undefined ? {} : { apiVersion: body.apiVersion }),
      },
      expected,
    );
    res.setHeader('ETag', webhookEndpointEtag(endpoint)).json(presentWebhookEndpoint(endpoint));
  }

  async remove(req: Request, res: Response): Promise<void> {
    await this.useCases.delete(scopeOf(req), param(req, 'webhookEndpointId'));
    res.status(204).end();
  }

  /** Sandbox only (like the sandbox's scenarios, production has no such route): a signed test delivery. */
  async sendTest(req: Request, res: Response): Promise<void> {
    assertEmptyBody(req.body);
    const scope = scopeOf(req);
    if (scope.environment !== 'sandbox') {
      throw new HttpError(404, 'not_found', 'Test events exist only in the sandbox environment.');
    }
    const event = await this.useCases.sendTest(scope, param(req, 'webhookEndpointId'));
    res.status(202).json(presentEvent(event, 'current'));
  }

  async listDeliveries(req: Request, res: Response): Promise<void> {
    const query = validateInput(ListWebhookEndpointsQuery, req.query, 'query');
    const page = await this.useCases.listDeliveries(scopeOf(req), param(req, 'webhookEndpointId'), {
      limit: parseLimit(query.limit),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    res.json({ data: page.items.map(presentWebhookDelivery), pagination: { nextCursor: page.nextCursor } });
  }

  async retryDelivery(req: Request, res: Response): Promise<void> {
    assertEmptyBody(req.body);
    const delivery = await this.useCases.retryDelivery(
      scopeOf(req),
      param(req, 'webhookEndpointId'),
      param(req, 'deliveryId'),
    );
    res.status(202).json(presentWebhookDelivery(delivery));
  }

  async rotateSecret(req: Request, res: Response): Promise<void> {
    assertEmptyBody(req.body);
    const { endpoint, secret } = await this.useCases.rotateSecret(
      scopeOf(req),
      param(req, 'webhookEndpointId'),
    );
    res
      .setHeader('ETag', webhookEndpointEtag(endpoint))
      .json(presentWebhookEndpointWithSecret(endpoint, secret));
  }
}
