import type { Router } from 'express';
import { addRoutes } from '../http/route-table';
import type { ManualHandoffController } from './manual-handoff.controller';

/**
 * Adds the manual-handoff and live-session paths to the authorization router, so they are served under both
 * authorization path families (decision 0014).
 */
export function addManualHandoffRoutes(router: Router, controller: ManualHandoffController): void {
  const handoffs = '/:authorizationId/manual-handoffs';
  const one = `${handoffs}/:manualHandoffId`;
  addRoutes(router, {
    [handoffs]: {
      post: (req, res) => controller.create(req, res),
      get: (req, res) => controller.list(req, res),
    },
    [one]: { get: (req, res) => controller.retrieve(req, res) },
    [`${one}/complete`]: { post: (req, res) => controller.complete(req, res) },
    [`${one}/unable-to-complete`]: { post: (req, res) => controller.unableToComplete(req, res) },
    [`${one}/revoke`]: { post: (req, res) => controller.revoke(req, res) },
    [`${one}/access-grants`]: { post: (req, res) => controller.createAccessGrant(req, res) },
    '/:authorizationId/live-session': { get: (req, res) => controller.getLiveSession(req, res) },
    '/:authorizationId/live-session/access-grants': {
      post: (req, res) => controller.createLiveSessionGrant(req, res),
    },
  });
}
