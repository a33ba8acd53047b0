import { LIVE_SESSION_PATH } from '@prior-auth/presentation';
import { authorizationMounts } from '../authorization/authorization.openapi';
import type { Resource } from '../http/route-table';
import { TAGS } from '../openapi/openapi.operations';
import type { ManualHandoffController } from './manual-handoff.controller';
import { MANUAL_HANDOFF_OPERATIONS as DOC } from './manual-handoff.openapi';

const HANDOFFS = '/:authorizationId/manual-handoffs';
const ONE = `${HANDOFFS}/:manualHandoffId`;

/**
 * The manual-handoff and live-session paths: added to the authorization router, so they are served under both
 * authorization path families (decision 0014).
 */
export const MANUAL_HANDOFF_RESOURCE: Resource<ManualHandoffController> = {
  mounts: authorizationMounts({ primary: TAGS.handoffs, alternate: TAGS.handoffsAlt }),
  routes: {
    [HANDOFFS]: {
      post: { serve: (c, req, res) => c.create(req, res), openapi: DOC.create },
      get: { serve: (c, req, res) => c.list(req, res), openapi: DOC.list },
    },
    [ONE]: { get: { serve: (c, req, res) => c.retrieve(req, res), openapi: DOC.retrieve } },
    [`${ONE}/complete`]: { post: { serve: (c, req, res) => c.complete(req, res), openapi: DOC.complete } },
    [`${ONE}/unable-to-complete`]: {
      post: { serve: (c, req, res) => c.unableToComplete(req, res), openapi: DOC.unableToComplete },
    },
    [`${ONE}/revoke`]: { post: { serve: (c, req, res) => c.revoke(req, res), openapi: DOC.revoke } },
    [`${ONE}/access-grants`]: {
      post: { serve: (c, req, res) => c.createAccessGrant(req, res), openapi: DOC.createAccessGrant },
    },
    [LIVE_SESSION_PATH]: {
      get: { serve: (c, req, res) => c.getLiveSession(req, res), openapi: DOC.getLiveSession },
    },
    [`${LIVE_SESSION_PATH}/access-grants`]: {
      post: {
        serve: (c, req, res) => c.createLiveSessionGrant(req, res),
        openapi: DOC.createLiveSessionGrant,
      },
    },
  },
};
