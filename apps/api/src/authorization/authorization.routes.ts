import express, { type Router } from 'express';
import { addRoutes, type Resource } from '../http/route-table';
import type { ManualHandoffController } from '../manual-handoff/manual-handoff.controller';
import { MANUAL_HANDOFF_RESOURCE } from '../manual-handoff/manual-handoff.routes';
import { TAGS } from '../openapi/openapi.operations';
import type { AuthorizationController } from './authorization.controller';
import { AUTHORIZATION_OPERATIONS as DOC, authorizationMounts } from './authorization.openapi';
import type { LegacyWorkflowController } from './legacy/legacy-workflow.controller';

/** The controllers behind the authorization paths. */
export interface AuthorizationControllers {
  authorizations: AuthorizationController;
  handoffs: ManualHandoffController;
  legacy: LegacyWorkflowController;
}

/** The authorization resource, served under both path families the spec names. */
export const AUTHORIZATION_RESOURCE: Resource<AuthorizationControllers> = {
  mounts: authorizationMounts({ primary: TAGS.authorizations, alternate: TAGS.authorizationsAlt }),
  routes: {
    '/': {
      post: { serve: (c, req, res) => c.authorizations.create(req, res), openapi: DOC.create },
      get: { serve: (c, req, res) => c.authorizations.list(req, res), openapi: DOC.list },
    },
    '/:authorizationId': {
      get: { serve: (c, req, res) => c.authorizations.retrieve(req, res), openapi: DOC.retrieve },
      // Legacy-only: answers the workflow shape whatever the version (decision 0032).
      patch: { serve: (c, req, res) => c.legacy.update(req, res), openapi: DOC.updateLegacy },
    },
    '/:authorizationId/answers': {
      patch: { serve: (c, req, res) => c.authorizations.patchAnswers(req, res), openapi: DOC.patchAnswers },
    },
    '/:authorizationId/attachments': {
      post: { serve: (c, req, res) => c.authorizations.attachFile(req, res), openapi: DOC.attachFile },
    },
    '/:authorizationId/attachments/:attachmentId': {
      delete: {
        serve: (c, req, res) => c.authorizations.detachAttachment(req, res),
        openapi: DOC.detachAttachment,
      },
    },
    '/:authorizationId/confirm': {
      post: { serve: (c, req, res) => c.authorizations.confirm(req, res), openapi: DOC.confirm },
    },
    '/:authorizationId/cancel': {
      post: { serve: (c, req, res) => c.authorizations.cancel(req, res), openapi: DOC.cancel },
    },
    '/:authorizationId/actions/:actionId/resolve': {
      post: { serve: (c, req, res) => c.legacy.resolveAction(req, res), openapi: DOC.resolveActionLegacy },
    },
  },
};

/**
 * One router for the authorization resource and its manual handoffs; `app.ts` mounts it at every mount of
 * `AUTHORIZATION_RESOURCE`, so the two path families can never drift apart.
 */
export function authorizationRouter(controllers: AuthorizationControllers): Router {
  const router = addRoutes(express.Router(), AUTHORIZATION_RESOURCE.routes, controllers);
  return addRoutes(router, MANUAL_HANDOFF_RESOURCE.routes, controllers.handoffs);
}
