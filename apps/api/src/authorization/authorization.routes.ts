import express, { type Router } from 'express';
import { asyncHandler } from '../http/async-handler';
import { methodNotAllowed } from '../http/method-not-allowed';
import type { ManualHandoffController } from '../manual-handoff/manual-handoff.controller';
import { addManualHandoffRoutes } from '../manual-handoff/manual-handoff.routes';
import type { AuthorizationController } from './authorization.controller';

/**
 * One router for the authorization resource. `app.ts` mounts it under both path families the spec names
 * (`/v1/prior-auth/authorizations` and `/v1/prior-authorizations`), so the two can never drift apart.
 */
export function authorizationRouter(
  controller: AuthorizationController,
  handoffs: ManualHandoffController,
): Router {
  const router = express.Router();
  router
    .route('/')
    .post(asyncHandler((req, res) => controller.create(req, res)))
    .get(asyncHandler((req, res) => controller.list(req, res)))
    .all(methodNotAllowed);
  router
    .route('/:authorizationId')
    .get(asyncHandler((req, res) => controller.retrieve(req, res)))
    .all(methodNotAllowed);
  router
    .route('/:authorizationId/answers')
    .patch(asyncHandler((req, res) => controller.patchAnswers(req, res)))
    .all(methodNotAllowed);
  router
    .route('/:authorizationId/attachments')
    .post(asyncHandler((req, res) => controller.attachFile(req, res)))
    .all(methodNotAllowed);
  router
    .route('/:authorizationId/attachments/:attachmentId')
    .delete(asyncHandler((req, res) => controller.detachAttachment(req, res)))
    .all(methodNotAllowed);
  router
    .route('/:authorizationId/confirm')
    .post(asyncHandler((req, res) => controller.confirm(req, res)))
    .all(methodNotAllowed);
  router
    .route('/:authorizationId/cancel')
    .post(asyncHandler((req, res) => controller.cancel(req, res)))
    .all(methodNotAllowed);
  addManualHandoffRoutes(router, handoffs);
  return router;
}
