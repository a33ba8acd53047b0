import {
  type LiveSessionFrames,
  type LiveSessionInputs,
  type RuntimeSessionLedger,
  type StoredLiveFrame,
} from '@prior-auth/domain';
import { type Logger } from '@prior-auth/platform';
import express, { type Request, type Response, type Router } from 'express';
import { asyncHandler } from '../http/async-handler';
import { GRANT_HTTP_ERROR_STATUS, type GrantHttpErrorCode } from '../http/error-mapping';
import { HttpError, validationFailed } from '../http/http-error';
import { methodNotAllowed } from '../http/method-not-allowed';
import { type LiveFrameHub } from './live-frame-hub';
import { LIVE_INPUT_BODY_LIMIT_BYTES, parseLiveInput } from './live-input.request';
import { type LiveViewAccess, type LiveViewCheck, type LiveViewUse } from './live-view-access';
import {
  INTERACTIVE_LIVE_VIEW_CONTENT_SECURITY_POLICY,
  LIVE_VIEW_CONTENT_SECURITY_POLICY,
  liveViewPage,
} from './live-view.page';

/** A comment line now and then keeps proxies from closing a quiet stream; it also renews the watch. */
const HEARTBEAT_MS = 10_000;
/** How long one renewal tells the browser's owner a viewer wants frames (a few heartbeats). */
const WATCH_MS = 30_000;

const REFUSALS: Record<Exclude<LiveViewCheck, { ok: true }>['refusal'], [GrantHttpErrorCode, string]> = {
  invalid: ['access_grant_invalid', 'This live view link is not valid.'],
  read_only: ['access_grant_invalid', 'This live view is read-only: it accepts no input.'],
  revoked: ['access_grant_revoked', 'The access grant of this live view was revoked; request a new one.'],
  expired: ['access_grant_expired', 'This live view has expired; request a new access grant.'],
  subject_inactive: ['access_grant_subject_inactive', 'The live session has ended.'],
};

export interface LiveViewRouterDeps {
  access: LiveViewAccess;
  hub: LiveFrameHub;
  frames: LiveSessionFrames;
  /** Where input sent to an interactive view goes, to the worker that owns the browser (decision 0038). */
  inputs: LiveSessionInputs;
  sessions: RuntimeSessionLedger;
  logger: Logger;
}

/**
 * The read-only live view of a worker's browser session (decision 0033), where an opened live-session grant
 * leads: `GET /live-sessions/{token}` is the page, `GET …/stream` its server-sent events (`frame`, then
 * `ended`). Any other method on the page, and anything sent to `…/input`, is input and is refused. No API key:
 * the signed token is the credential, checked against its grant and audited on every use.
 */
export function liveViewRouter(deps: LiveViewRouterDeps): Router {
  const router = express.Router();
  const checked = async (req: Request, use: LiveViewUse) => {
    const check = await deps.access.check(String(req.params.token), use, {
      address: req.ip ?? req.socket.remoteAddress ?? null,
      userAgent: req.get('user-agent') ?? null,
    });
    if (!check.ok) {
      const [code, message] = REFUSALS[check.refusal];
      throw new HttpError(GRANT_HTTP_ERROR_STATUS[code], code, message);
    }
    return check;
  };
  const refuseInput = asyncHandler(async (req) => {
    await checked(req, 'input');
    // Input goes to `…/input` alone, as a POST (decision 0038).
    throw new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on this path.`);
  });
  const acceptInput = asyncHandler(async (req, res) => {
    const { session } = await checked(req, 'input');
    const input = parseLiveInput(req.body);
    if (input === null) {
      throw validationFailed([
        {
          errorType: 'invalid',
          location: ['body'],
          message:
            'An input is {kind: "click", x, y} (fractions 0–1), {kind: "key", key} (a named key), {kind: "text", text}, ' +
            '{kind: "scroll", x, y, deltaX, deltaY}, {kind: "pointer", phase: "down"|"move"|"up", x, y} or ' +
            '{kind: "paste", text}.',
        },
      ]);
    }
    await deps.inputs.send(session.id, input);
    res.status(202).set('Cache-Control', 'no-store').json({ accepted: true });
  });

  router
    .route('/live-sessions/:token')
    .get(
      asyncHandler(async (req, res) => {
        const { session, access } = await checked(req, 'view');
        res
          .status(200)
          .set({
            'Content-Type': 'text/html; charset=utf-8',
            'Content-Security-Policy':
              access === 'interactive'
                ? INTERACTIVE_LIVE_VIEW_CONTENT_SECURITY_POLICY
                : LIVE_VIEW_CONTENT_SECURITY_POLICY,
            'Referrer-Policy': 'no-referrer',
            'X-Robots-Tag': 'noindex, nofollow',
          })
          .send(
            liveViewPage({
              id: session.id,
              authorizationId: session.authorizationId,
              startedAt: session.createdAt,
              interactive: access === 'interactive',
            }),
          );
      }),
    )
    .all(refuseInput);
  router
    .route('/live-sessions/:token/stream')
    .get(asyncHandler(async (req, res) => stream(deps, await checked(req, 'stream'), req, res)))
    .all(methodNotAllowed);
  router
    .route('/live-sessions/:token/input')
    .post(express.json({ limit: LIVE_INPUT_BODY_LIMIT_BYTES, type: () => true, strict: true }), acceptInput)
    .all(refuseInput);
  return router;
}

/** Sends the newest frame at once and every newer one as it is published, until the session or grant ends. */
async function stream(
  deps: LiveViewRouterDeps,
  check: Extract<LiveViewCheck, { ok: true }>,
  req: Request,
  res: Response,
): Promise<void> {
  const sessionId = check.session.id;
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  res.write('retry: 2000\n\n');

  let lastSeq = 0;
  let closed = false;
  let busy = false;
  let again = false;
  let unsubscribe: () => void = () => undefined;
  // The browser's owner captures frames only while someone watches (decision 0033).
  const renewWatch = () =>
    deps.frames
      .markWatched(sessionId, new Date(Date.now() + WATCH_MS))
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, sessionId }, 'live view could not renew its watch'),
      );
  const heartbeat = setInterval(() => {
    res.write(': keep-alive\n\n');
    void renewWatch();
  }, HEARTBEAT_MS);
  const expiry = setTimeout(() => finish('expired'), Math.max(0, check.expiresAt.getTime() - Date.now()));
  const finish = (reason: 'ended' | 'expired' | null) => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearInterval(heartbeat);
    clearTimeout(expiry);
    if (reason !== null) res.write(`event: ended\ndata: ${JSON.stringify({ reason })}\n\n`);
    res.end();
  };
  const send = (frame: StoredLiveFrame) => {
    const data = {
      seq: frame.seq,
      page: frame.page,
      contentType: frame.contentType,
      capturedAt: frame.capturedAt.toISOString(),
      image: Buffer.from(frame.bytes).toString('base64'),
    };
    res.write(`event: frame\ndata: ${JSON.stringify(data)}\n\n`);
  };
  // One look at a time; a change announced meanwhile is looked at right after.
  const refresh = async (): Promise<void> => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        const frame = await deps.frames.latest(sessionId);
        if (closed) return;
        if (frame !== null && frame.seq > lastSeq) {
          lastSeq = frame.seq;
          send(frame);
        }
        const session = await deps.sessions.find(sessionId);
        if (session === null || session.status === 'ended') return finish('ended');
      } while (again && !closed);
    } catch (error) {
      deps.logger.warn({ err: error, sessionId }, 'live view could not read the session');
    } finally {
      busy = false;
    }
  };

  req.on('close', () => finish(null));
  try {
    unsubscribe = await deps.hub.subscribe(sessionId, () => void refresh());
  } catch (error) {
    deps.logger.error({ err: error }, 'live view cannot listen for frames');
    return finish(null);
  }
  if (closed) return unsubscribe();
  await renewWatch();
  await refresh();
}
