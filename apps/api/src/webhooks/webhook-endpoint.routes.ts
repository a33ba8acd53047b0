import express, { type Router } from 'express';
import { addRoutes } from '../http/route-table';
import type { WebhookEndpointController } from './webhook-endpoint.controller';

/** `/v1/webhook-endpoints` (docs/decisions/0031-events-and-webhooks.md): the endpoints and their deliveries. */
export function webhookEndpointRouter(controller: WebhookEndpointController): Router {
  return addRoutes(express.Router(), {
    '/': {
      post: (req, res) => controller.create(req, res),
      get: (req, res) => controller.list(req, res),
    },
    '/:webhookEndpointId': {
      get: (req, res) => controller.retrieve(req, res),
      patch: (req, res) => controller.update(req, res),
      delete: (req, res) => controller.remove(req, res),
    },
    '/:webhookEndpointId/rotate-secret': { post: (req, res) => controller.rotateSecret(req, res) },
    '/:webhookEndpointId/test': { post: (req, res) => controller.sendTest(req, res) },
    '/:webhookEndpointId/deliveries': { get: (req, res) => controller.listDeliveries(req, res) },
    '/:webhookEndpointId/deliveries/:deliveryId/retry': {
      post: (req, res) => controller.retryDelivery(req, res),
    },
  });
}
