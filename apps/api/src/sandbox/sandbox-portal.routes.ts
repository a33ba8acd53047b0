import { SANDBOX_SESSION_ROUTE, type SandboxSessionPage } from '@prior-auth/payer-portal';
import express, { type RequestHandler, type Router } from 'express';

/**
 * The sandbox payer's session page, where sandbox access grants redirect. Outside `/v1` (the signed URL is the
 * credential) and before the JSON-only body check: the page posts an HTML form, which the page reads itself.
 */
export function sandboxPortalRouter(page: SandboxSessionPage): Router {
  const router = express.Router();
  const handle: RequestHandler = (req, res, next) => {
    page.handle(req, res).catch(next);
  };
  // The page answers every method itself (other methods get its own 405 page).
  router.route(SANDBOX_SESSION_ROUTE).get(handle).post(handle).all(handle);
  return router;
}
