import type { AccessGrantGate } from '@prior-auth/grants';
import express, { type Router } from 'express';
import { asyncHandler } from '../http/async-handler';
import { GRANT_HTTP_ERROR_STATUS, type GrantHttpErrorCode } from '../http/error-mapping';
import { HttpError } from '../http/http-error';
import { methodNotAllowed } from '../http/method-not-allowed';

const REFUSALS: Record<'invalid' | 'revoked' | 'expired' | 'subject_inactive', [GrantHttpErrorCode, string]> =
  {
    invalid: ['access_grant_invalid', 'This access link is not valid.'],
    revoked: ['access_grant_revoked', 'This access link was revoked; request a new one.'],
    expired: ['access_grant_expired', 'This access link has expired; request a new one.'],
    subject_inactive: [
      'access_grant_subject_inactive',
      'The manual handoff is no longer active, or the live session has ended.',
    ],
  };

/**
 * `GET /grants/:token`: no API key (the signed URL is the credential). The gate validates and audits every
 * attempt; a valid grant answers 303 to the runtime session. The redirect target is itself a capability, so
 * it must not leak through a Referer header or a cache.
 */
export function grantRouter(gate: AccessGrantGate): Router {
  const router = express.Router();
  router
    .route('/grants/:token')
    .get(
      asyncHandler(async (req, res) => {
        const opening = await gate.open(String(req.params.token), {
          address: req.ip ?? req.socket.remoteAddress ?? null,
          userAgent: req.get('user-agent') ?? null,
        });
        if (opening.outcome !== 'redirected') {
          const [code, message] = REFUSALS[opening.outcome];
          throw new HttpError(GRANT_HTTP_ERROR_STATUS[code], code, message);
        }
        // No body: the location is a capability and has no business in a page a proxy might keep.
        res.status(303).set({ Location: opening.location, 'Referrer-Policy': 'no-referrer' }).end();
      }),
    )
    .all(methodNotAllowed);
  return router;
}
