import { type CustomerPortalSessionKey } from '@prior-auth/domain';
import {
  MemoryCustomerPortalSessions,
  SANDBOX_PAYER_DEMO_ACCOUNT,
  SandboxPayerSitePage,
} from '@prior-auth/payer-portal';
import { publicBaseUrl } from '@prior-auth/platform';
import { liveSessionReadUrl } from '@prior-auth/presentation';
import request from 'supertest';
import { client, readyToConfirm, sandboxScope, type Client } from './authorization-helpers';
import { payerWebsite, pipeline } from './pipeline-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * `liveViewUrl` on the review snapshot (docs/decisions/0046-live-view-url-on-review.md): a `customer_login`
 * case reviewed while the customer's payer sign-in is held links to its live-session read, which answers with
 * the API key; an `automated` case's review links to nothing. The customer's sign-in is made at the website
 * by a browser of the test, as the customer's kept page would (customer-login.api.spec.ts drives that part
 * through the interactive view), and kept for the case where the portal keeps such sessions.
 */

let t: TestApp;
let tenant: TestTenant;
let c: Client;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await t.createTenant();
  c = client(t.app, tenant.keys.sandbox);
}, 90_000);

afterAll(async () => {
  await t.close();
});

const liveViewUrl = (authorizationId: string) => liveSessionReadUrl(publicBaseUrl(t.config), authorizationId);

/** The customer signs in to the payer with their own account; the signed-in session is kept for the case. */
async function customerSignedIn(sessions: MemoryCustomerPortalSessions, key: CustomerPortalSessionKey) {
  const site = await payerWebsite();
  const context = await site.newContext();
  try {
    const page = await context.newPage();
    await new SandboxPayerSitePage(site.url).signIn(page, SANDBOX_PAYER_DEMO_ACCOUNT);
    const state = JSON.stringify(await context.storageState());
    await sessions.keep(key, state, new Date(Date.now() + 60 * 60 * 1000));
  } finally {
    await context.close();
  }
}

/** Confirms a case that asks for final approval and runs the worker's steps to its review. */
async function toReview(
  overrides: Record<string, unknown>,
  portalOptions: object,
  before?: (id: string) => Promise<void>,
) {
  const { authorization } = await readyToConfirm(c, tenant, 'requires_confirmation', undefined, overrides);
  await c
    .confirm(authorization.id, `"${authorization.version}"`, { nextActionId: authorization.nextAction.id })
    .expect(200);
  await before?.(authorization.id);
  const site = await payerWebsite();
  const steps = pipeline(
    t,
    undefined,
    site.portal({ idleSessionsPerAccount: 0, liveViewUrl, ...portalOptions }),
  );
  expect(await steps.process(sandboxScope(tenant), authorization.id)).toEqual(['awaiting_final_approval']);
  const review = await c.get(authorization.id).expect(200);
  expect(review.body).toMatchObject({
    status: 'requires_confirmation',
    nextAction: { type: 'approve_submission' },
  });
  return review.body as {
    id: string;
    submission: { reviewSnapshot: { liveViewUrl: string | null } };
  };
}

it('links a customer_login review to the live-session read while the customer is signed in', async () => {
  const sessions = new MemoryCustomerPortalSessions();
  const reviewed = await toReview(
    { portalAuthMode: 'customer_login' },
    {
      customerSessions: sessions,
      // The service has no sign-in of its own for a customer_login case: its runs go on from the customer's.
      credentials: async () => {
        throw new Error('customer_login asks for no stored credentials');
      },
    },
    (authorizationId) =>
      customerSignedIn(sessions, {
        organizationId: tenant.organizationId,
        environment: 'sandbox',
        authorizationId,
      }),
  );
  const url = reviewed.submission.reviewSnapshot.liveViewUrl;
  expect(url).toBe(liveViewUrl(reviewed.id));

  // The link is the side-effect-free read: it answers with the API key and describes the case's live session.
  const read = await request(t.app)
    .get(new URL(url!).pathname)
    .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
    .expect(200);
  expect(read.body).toMatchObject({
    authorization: { id: reviewed.id, status: 'requires_confirmation' },
    available: expect.any(Boolean),
  });
  expect(Object.keys(read.body).sort()).toEqual(['authorization', 'available', 'startedAt', 'status']);
  // Without the key it answers nothing: the link carries no capability.
  await request(t.app).get(new URL(url!).pathname).expect(401);

  // The same review in the event the step wrote (what webhooks deliver) carries the same link.
  const events = await request(t.app)
    .get(`/v1/events?authorizationId=${reviewed.id}`)
    .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
    .expect(200);
  const reviewedEvents = (
    events.body.data as Array<{
      data: { object: { submission?: { reviewSnapshot: { liveViewUrl: string } | null } } };
    }>
  ).filter((event) => event.data.object.submission?.reviewSnapshot);
  expect(reviewedEvents.length).toBeGreaterThan(0);
  for (const event of reviewedEvents)
    expect(event.data.object.submission!.reviewSnapshot!.liveViewUrl).toBe(url);
});

it('keeps an automated review without a link', async () => {
  const reviewed = await toReview({}, {});
  expect(reviewed.submission.reviewSnapshot.liveViewUrl).toBeNull();
});
