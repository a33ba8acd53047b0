import type { Router } from 'express';
import { asyncHandler } from '../http/async-handler';
import { methodNotAllowed } from '../http/method-not-allowed';
import type { ManualHandoffController } from './manual-handoff.controller';

/**
 * Adds the manual-handoff and live-session paths to the authorization router, so they are served under both
 * authorization path families (decision 0014).
 */
export function addManualHandoffRoutes(router: Router, controller: ManualHandoffController): void {
  const handoffs = '/:authorizationId/manual-handoffs';
  router
    .route(handoffs)
    .post(asyncHandler((req, res) => controller.create(req, res)))
    .get(asyncHandler((req, res) => controller.list(req, res)))
    .all(methodNotAllowed);
  router
    .route(`${handoffs}/:manualHandoffId`)
    .get(asyncHandler((req, res) => controller.retrieve(req, res)))
    .all(methodNotAllowed);
  const commands = {
    complete: controller.complete,
    'unable-to-complete': controller.unableToComplete,
    revoke: controller.revoke,
    'access-grants': controller.createAccessGrant,
  } as const;
  for (const [path, handler] of Object.entries(commands)) {
    router
      .route(`${handoffs}/:manualHandoffId/${path}`)
      .post(asyncHandler((req, res) => handler.call(controller, req, res)))
      .all(methodNotAllowed);
  }
  router
    .route('/:authorizationId/live-session')
    .get(asyncHandler((req, res) => controller.getLiveSession(req, res)))
    .all(methodNotAllowed);
  router
    .route('/:authorizationId/live-session/access-grants')
    .post(asyncHandler((req, res) => controller.createLiveSessionGrant(req, res)))
    .all(methodNotAllowed);
}
