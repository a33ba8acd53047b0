import express, { type Router } from 'express';
import { addRoutes } from '../http/route-table';
import type { ManualHandoffController } from '../manual-handoff/manual-handoff.controller';
import { addManualHandoffRoutes } from '../manual-handoff/manual-handoff.routes';
import type { AuthorizationController } from './authorization.controller';
import type { LegacyWorkflowController } from './legacy/legacy-workflow.controller';

/**
 * One router for the authorization resource. `app.ts` mounts it under both path families the spec names
 * (`/v1/prior-auth/authorizations` and `/v1/prior-authorizations`), so the two can never drift apart.
 */
export function authorizationRouter(
  controller: AuthorizationController,
  handoffs: ManualHandoffController,
  legacy: LegacyWorkflowController,
): Router {
  const router = addRoutes(express.Router(), {
    '/': {
      post: (req, res) => controller.create(req, res),
      get: (req, res) => controller.list(req, res),
    },
    '/:authorizationId': {
      get: (req, res) => controller.retrieve(req, res),
      // Legacy-only: answers the workflow shape whatever the version (decision 0032).
      patch: (req, res) => legacy.update(req, res),
    },
    '/:authorizationId/answers': { patch: (req, res) => controller.patchAnswers(req, res) },
    '/:authorizationId/attachments': { post: (req, res) => controller.attachFile(req, res) },
    '/:authorizationId/attachments/:attachmentId': {
      delete: (req, res) => controller.detachAttachment(req, res),
    },
    '/:authorizationId/confirm': { post: (req, res) => controller.confirm(req, res) },
    '/:authorizationId/cancel': { post: (req, res) => controller.cancel(req, res) },
    '/:authorizationId/actions/:actionId/resolve': { post: (req, res) => legacy.resolveAction(req, res) },
  });
  addManualHandoffRoutes(router, handoffs);
  return router;
}
