import { createHash } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import multer from 'multer';
import { verifySync } from 'otplib';
import { decisionLetterPdf } from './decision-letter.pdf';
import * as views from './portal.views';
import { statusOf } from './request-decision';
import { type Draft, type SandboxStore, type SessionRow } from './sandbox-store';
import { isKnownMember, PORTAL_QUESTION, websiteScenarioFor } from './website-scenarios';

export interface PortalRouteOptions {
  store: SandboxStore;
  decisionDelayMs: number;
  /** How many times a `portal_down` request answers 503 before the portal is back (per request reference). */
  portalDownResponses: number;
  sessionIdleMs: number;
  redesigned: boolean;
  /** Lets a one-time code sign its user in more than once (test suites; the default refuses). */
  reusableCodes: boolean;
  now: () => Date;
}

const COOKIE = 'psid';
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const HUMAN_CHECK_ANSWER = 'verify human';
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type SessionRequest = Request & { portalSession?: SessionRow };

const html = (res: Response, status: number, page: string) => res.status(status).type('html').send(page);

function cookieOf(req: Request): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === COOKIE) return rest.join('=') || null;
  }
  return null;
}

/** A real calendar date (`2027-02-30` is not: the round trip through Date must give it back). */
const validDate = (value: string | undefined) => {
  if (value === undefined || !DATE.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
};

const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.trim() : '';
};

/** What the uploaded bytes really are: only PDF, PNG and JPEG are accepted, whatever the browser claimed. */
function sniff(bytes: Buffer): string | null {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return null;
}

/** The provider portal of the simulated payer: sign-in, member lookup, the request form, status pages. */
export function portalRoutes(options: PortalRouteOptions): Router {
  const { store } = options;
  const view: views.ViewOptions = { redesigned: options.redesigned };
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '100kb' });
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 },
  });

  const setCookie = (res: Response, id: string) =>
    res.setHeader('Set-Cookie', `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`);
  const clearCookie = (res: Response) =>
    res.setHeader('Set-Cookie', `${COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`);

  /** A signed-in session (password and code); an unknown or idle one sends the user back to sign in. */
  const signedIn =
    (requireMfa: boolean) => async (req: SessionRequest, res: Response, next: NextFunction) => {
      const id = cookieOf(req);
      const session = id ? await store.session(id, options.sessionIdleMs) : null;
      if (!session) {
        if (id) clearCookie(res);
        return res.redirect(303, id ? '/sign-in?expired=1' : '/sign-in');
      }
      if (requireMfa && !session.mfaPassed) return res.redirect(303, '/sign-in/verify');
      req.portalSession = session;
      next();
    };
  const session = signedIn(true);
  const sessionOf = (req: SessionRequest) => req.portalSession!;
  const saveDraft = (req: SessionRequest, draft: Draft) => store.saveDraft(sessionOf(req).id, draft);

  router.get('/', (_req, res) => res.redirect(303, '/providers'));

  router.get('/sign-in', (req, res) =>
    html(
      res,
      200,
      views.signInPage(
        view,
        undefined,
        req.query.expired ? 'Your session has expired. Please sign in again.' : undefined,
      ),
    ),
  );

  router.post('/sign-in', form, async (req, res) => {
    const username = field(req.body, 'username');
    const password = typeof req.body?.password === 'string' ? (req.body.password as string) : '';
    const account = username ? await store.account(username) : null;
    if (!account || !store.passwordMatches(account.passwordSha256, password)) {
      return html(
        res,
        401,
        views.signInPage(view, {
          code: 'invalid-credentials',
          message: 'The username or password you entered is incorrect.',
        }),
      );
    }
    if (account.locked) return html(res, 423, views.lockedPage());
    setCookie(res, await store.createSession(username));
    res.redirect(303, '/sign-in/verify');
  });

  router.get('/sign-in/verify', signedIn(false), (_req, res) => html(res, 200, views.verifyPage()));

  router.post('/sign-in/verify', signedIn(false), form, async (req: SessionRequest, res) => {
    const code = field(req.body, 'code');
    const account = await store.account(sessionOf(req).username);
    // One period either side: the code of the previous or next 30 s still counts, as most portals allow.
    const epoch = Math.floor(Date.now() / 1000);
    const checked =
      account !== null && /^\d{6}$/.test(code)
        ? verifySync({ secret: account.totpSecret, token: code, epoch, epochTolerance: 30 })
        : null;
    if (checked === null || !checked.valid) {
      return html(
        res,
        401,
        views.verifyPage({
          code: 'invalid-code',
          message: 'The code you entered is incorrect or has expired.',
        }),
      );
    }
    // A code signs in once, per user, as a real portal's does (docs/decisions/0043-page-scripts-load-nothing-mid-run.md).
    if (
      !options.reusableCodes &&
      !(await store.useCode(sessionOf(req).username, Math.floor(epoch / 30) + checked.delta))
    ) {
      return html(
        res,
        401,
        views.verifyPage({
          code: 'code-used',
          message: 'This code has already been used. Enter the next code your authenticator shows.',
        }),
      );
    }
    await store.passMfa(sessionOf(req).id);
    res.redirect(303, '/providers');
  });

  router.post('/sign-out', async (req, res) => {
    const id = cookieOf(req);
    if (id) await store.endSession(id);
    clearCookie(res);
    res.redirect(303, '/sign-in');
  });

  router.get('/providers', session, (_req, res) => html(res, 200, views.providerPage()));

  router.post('/providers', session, form, async (req: SessionRequest, res) => {
    const npi = field(req.body, 'npi');
    if (!/^\d{10}$/.test(npi))
      return html(res, 422, views.providerPage('Enter the 10-digit NPI of the provider.'));
    await saveDraft(req, { providerNpi: npi });
    res.redirect(303, '/members');
  });

  const withProvider = (req: SessionRequest, res: Response, next: NextFunction) =>
    sessionOf(req).draft.providerNpi ? next() : res.redirect(303, '/providers');

  router.get('/members', session, withProvider, (req: SessionRequest, res) =>
    html(res, 200, views.memberSearchPage(sessionOf(req).draft.providerNpi!)),
  );

  router.post('/members', session, withProvider, form, async (req: SessionRequest, res) => {
    const values = { memberId: field(req.body, 'memberId'), birthDate: field(req.body, 'birthDate') };
    const errors: Record<string, string> = {};
    if (!values.memberId) errors.memberId = 'Enter the member ID from the member card.';
    if (!validDate(values.birthDate)) errors.birthDate = 'Enter the date of birth as YYYY-MM-DD.';
    else if (new Date(`${values.birthDate}T00:00:00Z`) > options.now())
      errors.birthDate = 'The date of birth cannot be in the future.';
    const npi = sessionOf(req).draft.providerNpi!;
    if (Object.keys(errors).length > 0) return html(res, 422, views.memberSearchPage(npi, errors, values));
    if (!isKnownMember(values.memberId)) return html(res, 404, views.memberNotFoundPage(values.memberId));
    const memberId = values.memberId.toUpperCase();
    await saveDraft(req, {
      providerNpi: npi,
      memberId,
      birthDate: values.birthDate,
      scenario: websiteScenarioFor(memberId),
    });
    res.redirect(303, '/members/current');
  });

  const withMember = (req: SessionRequest, res: Response, next: NextFunction) =>
    sessionOf(req).draft.memberId ? next() : res.redirect(303, '/members');

  router.get('/members/current', session, withMember, (req: SessionRequest, res) =>
    html(res, 200, views.memberPage(sessionOf(req).draft)),
  );

  router.post('/requests/new', session, withMember, async (req: SessionRequest, res) => {
    const { providerNpi, memberId, birthDate, scenario } = sessionOf(req).draft;
    await saveDraft(req, { providerNpi, memberId, birthDate, scenario, started: true });
    res.redirect(303, '/requests/draft/service');
  });

  const withDraft = (req: SessionRequest, res: Response, next: NextFunction) =>
    sessionOf(req).draft.started ? next() : res.redirect(303, '/members');

  router.get('/requests/draft/service', session, withDraft, (req: SessionRequest, res) => {
    const draft = sessionOf(req).draft;
    html(res, 200, views.serviceStepPage(draft, {}, draft.service ?? {}));
  });

  router.post('/requests/draft/service', session, withDraft, form, async (req: SessionRequest, res) => {
    const draft = sessionOf(req).draft;
    const names = ['externalReference', 'serviceCode', 'diagnosisCode', 'startDate', 'endDate'];
    if (draft.scenario === 'portal_question') names.push(PORTAL_QUESTION.linkId);
    const values = Object.fromEntries(names.map((name) => [name, field(req.body, name)]));
    const errors: Record<string, string> = {};
    if (!values.externalReference) errors.externalReference = 'Enter your reference for this request.';
    else if (values.externalReference.length > 100) errors.externalReference = 'Use at most 100 characters.';
    if (!/^[A-Za-z0-9]{5}$/.test(values.serviceCode!))
      errors.serviceCode = 'Enter a 5-character CPT or HCPCS code.';
    if (!/^[A-TV-Z][0-9][0-9A-Z](\.?[0-9A-Z]{1,4})?$/i.test(values.diagnosisCode!))
      errors.diagnosisCode = 'Enter a valid ICD-10 code, e.g. G47.33.';
    if (!validDate(values.startDate)) errors.startDate = 'Enter the requested start date.';
    if (values.endDate && !validDate(values.endDate))
      errors.endDate = 'Enter a valid end date or leave it empty.';
    else if (values.endDate && validDate(values.startDate) && values.endDate < values.startDate!)
      errors.endDate = 'The end date cannot be before the start date.';
    if (draft.scenario === 'portal_question') {
      const answer = values[PORTAL_QUESTION.linkId];
      if (!validDate(answer) || answer! < PORTAL_QUESTION.min || answer! > PORTAL_QUESTION.max) {
        errors[PORTAL_QUESTION.linkId] = 'This plan requires the planned start date of the service.';
      }
    }
    if (Object.keys(errors).length > 0) return html(res, 422, views.serviceStepPage(draft, errors, values));
    if (draft.scenario === 'portal_down') {
      const seen = await store.bumpFault(values.externalReference!, 'portal_down');
      if (seen <= options.portalDownResponses)
        return html(res.setHeader('Retry-After', '1'), 503, views.unavailablePage());
    }
    await saveDraft(req, { ...draft, service: values });
    res.redirect(303, '/requests/draft/clinical');
  });

  const withService = (req: SessionRequest, res: Response, next: NextFunction) =>
    sessionOf(req).draft.service ? next() : res.redirect(303, '/requests/draft/service');

  router.get('/requests/draft/clinical', session, withDraft, withService, (req: SessionRequest, res) =>
    html(res, 200, views.clinicalStepPage({}, sessionOf(req).draft.clinical ?? '')),
  );

  router.post(
    '/requests/draft/clinical',
    session,
    withDraft,
    withService,
    form,
    async (req: SessionRequest, res) => {
      const clinical = field(req.body, 'clinical');
      if (!clinical)
        return html(
          res,
          422,
          views.clinicalStepPage({ clinical: 'Answer the clinical questions before you continue.' }),
        );
      if (clinical.length > 20_000)
        return html(
          res,
          422,
          views.clinicalStepPage({ clinical: 'Use at most 20,000 characters.' }, clinical),
        );
      await saveDraft(req, {
        ...sessionOf(req).draft,
        clinical,
        documents: sessionOf(req).draft.documents ?? [],
      });
      res.redirect(303, '/requests/draft/documents');
    },
  );

  const withClinical = (req: SessionRequest, res: Response, next: NextFunction) =>
    sessionOf(req).draft.clinical ? next() : res.redirect(303, '/requests/draft/clinical');

  router.get(
    '/requests/draft/documents',
    session,
    withDraft,
    withService,
    withClinical,
    (req: SessionRequest, res) => html(res, 200, views.documentsStepPage(sessionOf(req).draft)),
  );

  router.post(
    '/requests/draft/documents',
    session,
    withDraft,
    withService,
    withClinical,
    async (req: SessionRequest, res) => {
      const draft = sessionOf(req).draft;
      const refused = (message: string) => html(res, 422, views.documentsStepPage(draft, message));
      // The body is read first in every case, so no answer leaves the browser mid-upload.
      let uploadError: unknown = null;
      await new Promise<void>((resolve) =>
        upload.single('file')(req, res, (error: unknown) => {
          uploadError = error ?? null;
          resolve();
        }),
      );
      if (
        draft.scenario === 'session_expired' &&
        (await store.bumpFault(draft.service!.externalReference!, 'session_expired')) === 1
      ) {
        // The fault the scenario exists for: the session dies mid-form, once per request reference.
        await store.endSession(sessionOf(req).id);
        clearCookie(res);
        return res.redirect(303, '/sign-in?expired=1');
      }
      if (uploadError) {
        const tooLarge = uploadError instanceof multer.MulterError && uploadError.code === 'LIMIT_FILE_SIZE';
        return refused(
          tooLarge ? 'The file is larger than 10 MB.' : 'The upload could not be read. Please try again.',
        );
      }
      const file = req.file;
      if (!file || file.size === 0) return refused('Choose a file to upload.');
      const detected = sniff(file.buffer);
      if (!detected)
        return refused(
          `The file ${file.originalname} was refused: only PDF, PNG and JPEG files are accepted.`,
        );
      const documentType = field(req.body, 'documentType') || 'other';
      const documents = [
        ...(draft.documents ?? []),
        {
          name: file.originalname.slice(0, 200),
          contentType: detected,
          size: file.size,
          sha256: createHash('sha256').update(file.buffer).digest('hex'),
          documentType,
        },
      ];
      await saveDraft(req, { ...draft, documents });
      res.redirect(303, '/requests/draft/documents');
    },
  );

  router.get(
    '/requests/draft/review',
    session,
    withDraft,
    withService,
    withClinical,
    (req: SessionRequest, res) => {
      const draft = sessionOf(req).draft;
      html(res, 200, views.reviewPage(draft, draft.scenario === 'manual_handoff'));
    },
  );

  router.post(
    '/requests/draft/submit',
    session,
    withDraft,
    withService,
    withClinical,
    form,
    async (req: SessionRequest, res) => {
      const current = sessionOf(req);
      const draft = current.draft;
      const externalKey = draft.service!.externalReference!;
      if (
        draft.scenario === 'manual_handoff' &&
        field(req.body, 'humanAnswer').toLowerCase() !== HUMAN_CHECK_ANSWER
      ) {
        return html(
          res,
          422,
          views.reviewPage(
            draft,
            true,
            'The security check was not passed. Type the words shown in the picture.',
          ),
        );
      }
      if (draft.scenario === 'failed') {
        await store.bumpFault(externalKey, 'rejected');
        return html(
          res,
          422,
          views.rejectedPage(
            "The request cannot be accepted: the member's plan does not cover this service through this portal.",
          ),
        );
      }
      const request = await store.insertRequest({
        externalKey,
        username: current.username,
        providerNpi: draft.providerNpi!,
        memberId: draft.memberId!,
        scenario: draft.scenario ?? 'approved',
        form: { ...draft.service, birthDate: draft.birthDate, clinical: draft.clinical },
        documents: draft.documents ?? [],
      });
      await saveDraft(req, { providerNpi: draft.providerNpi });
      res.redirect(303, `/requests/${request.referenceNumber}/confirmation`);
    },
  );

  router.get('/requests', session, async (req: SessionRequest, res) => {
    const key = typeof req.query.key === 'string' ? req.query.key.trim() : '';
    const results = key ? await store.requestsByKey(key, sessionOf(req).username) : [];
    html(res, 200, views.searchPage(key, results));
  });

  router.get('/requests/:reference/confirmation', session, async (req: SessionRequest, res) => {
    const request = await store.request(String(req.params.reference), sessionOf(req).username);
    if (!request) return html(res, 404, views.notFoundPage());
    html(res, 200, views.confirmationPage(request));
  });

  router.get('/requests/:reference', session, async (req: SessionRequest, res) => {
    const request = await store.request(String(req.params.reference), sessionOf(req).username);
    if (!request) return html(res, 404, views.notFoundPage());
    html(res, 200, views.statusPage(request, statusOf(request, options.now(), options.decisionDelayMs)));
  });

  router.get('/requests/:reference/letter.pdf', session, async (req: SessionRequest, res) => {
    const request = await store.request(String(req.params.reference), sessionOf(req).username);
    const status = request ? statusOf(request, options.now(), options.decisionDelayMs) : null;
    if (!request || !status || !('decidedAt' in status)) return html(res, 404, views.notFoundPage());
    const pdf = await decisionLetterPdf(request, status);
    res
      .status(200)
      .type('application/pdf')
      .setHeader('Content-Disposition', `attachment; filename="decision-${request.referenceNumber}.pdf"`)
      .send(Buffer.from(pdf));
  });

  return router;
}
