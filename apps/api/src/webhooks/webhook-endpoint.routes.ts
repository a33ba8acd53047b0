import express, { type Router } from 'express';
import { addRoutes, type Resource } from '../http/route-table';
import { TAGS } from '../openapi/openapi.operations';
import type { WebhookEndpointController } from './webhook-endpoint.controller';
import { WEBHOOK_ENDPOINT_OPERATIONS as DOC } from './webhook-endpoint.openapi';

/** `/v1/webhook-endpoints` (docs/decisions/0031-events-and-webhooks.md): the endpoints and their deliveries. */
export const WEBHOOK_ENDPOINT_RESOURCE: Resource<WebhookEndpointController> = {
  mounts: [{ path: '/v1/webhook-endpoints', tag: TAGS.webhooks, operationIdSuffix: '' }],
  routes: {
    '/': {
      post: { serve: (c, req, res) => c.create(req, res), openapi: DOC.create },
      get: { serve: (c, req, res) => c.list(req, res), openapi: DOC.list },
    },
    '/:webhookEndpointId': {
      get: { serve: (c, req, res) => c.retrieve(req, res), openapi: DOC.retrieve },
      patch: { serve: (c, req, res) => c.update(req, res), openapi: DOC.update },
      delete: { serve: (c, req, res) => c.remove(req, res), openapi: DOC.remove },
    },
    '/:webhookEndpointId/rotate-secret': {
      post: { serve: (c, req, res) => c.rotateSecret(req, res), openapi: DOC.rotateSecret },
    },
    '/:webhookEndpointId/test': {
      post: { serve: (c, req, res) => c.sendTest(req, res), openapi: DOC.sendTest },
    },
    '/:webhookEndpointId/deliveries': {
      get: { serve: (c, req, res) => c.listDeliveries(req, res), openapi: DOC.listDeliveries },
    },
    '/:webhookEndpointId/deliveries/:deliveryId/retry': {
      post: { serve: (c, req, res) => c.retryDelivery(req, res), openapi: DOC.retryDelivery },
    },
  },
};

export const webhookEndpointRouter = (controller: WebhookEndpointController): Router =>
  addRoutes(express.Router(), WEBHOOK_ENDPOINT_RESOURCE.routes, controller);
