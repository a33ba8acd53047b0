import request from 'supertest';
import { client, countRows, createBody, newKey } from './authorization-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * Webhook deliveries through the API (docs/decisions/0031-events-and-webhooks.md): an event written with a
 * change fans out to the endpoints that enabled it, in the same transaction; an endpoint's deliveries are
 * listed newest first with their attempts, and a delivery can be sent again. Every answer is checked against
 * the OpenAPI document.
 */

const PATH = '/v1/webhook-endpoints';

let t: TestApp;
let tenant: TestTenant;
let stranger: TestTenant;

beforeAll(async () => {
  t = await createTestApp();
  [tenant, stranger] = await Promise.all([t.createTenant(), t.createTenant()]);
});
afterAll(() => t.close());

const as = (key: string) => ({
  post: (path: string) => request(t.app).post(path).set('Authorization', `Bearer ${key}`),
  get: (path: string) => request(t.app).get(path).set('Authorization', `Bearer ${key}`),
});

it('fans out matching events, lists deliveries newest first in pages, and retries one', async () => {
  const sandbox = as(tenant.keys.sandbox);
  const everything = await sandbox
    .post(PATH)
    .send({ url: 'http://localhost:9999/all', enabledEvents: ['*'] })
    .expect(201);
  const createdOnly = await sandbox
    .post(PATH)
    .send({ url: 'http://localhost:9999/created', enabledEvents: ['authorization.created'] })
    .expect(201);
  const unrelated = await sandbox
    .post(PATH)
    .send({ url: 'http://localhost:9999/none', enabledEvents: ['authorization.canceled'] })
    .expect(201);

  const c = client(t.app, tenant.keys.sandbox);
  const first = await c.create(createBody(tenant)).expect(201);
  const second = await c.create(createBody(tenant)).expect(201);

  const all = await sandbox.get(`${PATH}/${everything.body.id}/deliveries?limit=100`).expect(200);
  const events = await sandbox.get('/v1/events?limit=100').expect(200);
  expect(all.body.data.map((d: { eventId: string }) => d.eventId)).toEqual(
    events.body.data.map((e: { id: string }) => e.id),
  );
  expect(all.body.data[0]).toMatchObject({
    id: expect.stringMatching(/^whdel_/),
    status: 'pending',
    attempts: [],
    authorizationId: second.body.id,
  });

  const created = await sandbox.get(`${PATH}/${createdOnly.body.id}/deliveries`).expect(200);
  expect(created.body.data.map((d: { authorizationId: string }) => d.authorizationId)).toEqual([
    second.body.id,
    first.body.id,
  ]);
  expect(created.body.data.every((d: { eventType: string }) => d.eventType === 'authorization.created')).toBe(
    true,
  );
  const none = await sandbox.get(`${PATH}/${unrelated.body.id}/deliveries`).expect(200);
  expect(none.body).toEqual({ data: [], pagination: { nextCursor: null } });

  // Pages of one, newest first; the cursor is bound to the endpoint.
  const page1 = await sandbox.get(`${PATH}/${createdOnly.body.id}/deliveries?limit=1`).expect(200);
  expect(page1.body.data[0].authorizationId).toBe(second.body.id);
  const cursor = encodeURIComponent(page1.body.pagination.nextCursor);
  const page2 = await sandbox
    .get(`${PATH}/${createdOnly.body.id}/deliveries?limit=1&cursor=${cursor}`)
    .expect(200);
  expect(page2.body.data[0].authorizationId).toBe(first.body.id);
  await sandbox.get(`${PATH}/${everything.body.id}/deliveries?limit=1&cursor=${cursor}`).expect(422);

  const deliveryId = created.body.data[0].id as string;
  const retried = await sandbox
    .post(`${PATH}/${createdOnly.body.id}/deliveries/${deliveryId}/retry`)
    .expect(202);
  expect(retried.body).toMatchObject({ id: deliveryId, status: 'pending' });
  const jobs: Array<{ n: string }> = await t.dataSource.query(
    `SELECT count(*) AS n FROM pgboss.job WHERE name = 'deliver_webhook' AND data->>'deliveryId' = $1`,
    [deliveryId],
  );
  expect(Number(jobs[0]!.n)).toBe(2);

  const missing = await sandbox
    .post(`${PATH}/${createdOnly.body.id}/deliveries/whdel_unknown/retry`)
    .expect(404);
  expect(missing.body.error.code).toBe('webhook_delivery_not_found');
  // Another tenant sees neither the endpoint nor its deliveries.
  const foreign = as(stranger.keys.sandbox);
  await foreign.get(`${PATH}/${createdOnly.body.id}/deliveries`).expect(404);
  await foreign.post(`${PATH}/${createdOnly.body.id}/deliveries/${deliveryId}/retry`).expect(404);
});

it('sends a test event to one endpoint only, in the sandbox only', async () => {
  const sandbox = as(tenant.keys.sandbox);
  const target = await sandbox
    .post(PATH)
    .send({ url: 'http://localhost:9999/test', enabledEvents: ['authorization.canceled'] })
    .expect(201);
  const other = await sandbox
    .post(PATH)
    .send({ url: 'http://localhost:9999/other', enabledEvents: ['*'] })
    .expect(201);

  const sent = await sandbox.post(`${PATH}/${target.body.id}/test`).expect(202);
  expect(sent.body).toMatchObject({
    id: expect.stringMatching(/^evt_/),
    type: 'webhook_endpoint.test',
    authorizationId: null,
    data: { object: { id: target.body.id, url: 'http://localhost:9999/test', disabled: false } },
  });
  const deliveries = await sandbox.get(`${PATH}/${target.body.id}/deliveries`).expect(200);
  expect(deliveries.body.data).toEqual([
    expect.objectContaining({ eventId: sent.body.id, eventType: 'webhook_endpoint.test', status: 'pending' }),
  ]);
  const others = await sandbox.get(`${PATH}/${other.body.id}/deliveries`).expect(200);
  expect(others.body.data).toEqual([]);
  const listed = await sandbox.get('/v1/events?type=webhook_endpoint.test').expect(200);
  expect(listed.body.data).toEqual([sent.body]);

  await sandbox.post(`${PATH}/we_unknown/test`).expect(404);
  const production = await as(tenant.keys.production).post(`${PATH}/${target.body.id}/test`).expect(404);
  expect(production.body.error.code).toBe('not_found');
});

it('fans out a create of a tenant this process has not seen fan out: one case, one delivery and one job per event', async () => {
  // Decision 0055: the create's one statement is refused because its fan-out matched an endpoint, and it runs
  // again in a transaction that sends the jobs. Nothing of the refused statement may remain.
  const fresh = await t.createTenant();
  const c = client(t.app, fresh.keys.sandbox);
  // Before the endpoint: this create reads the tenant's provider registration and the payer catalog, cached
  // for seconds after, so the next create sends nothing but its writes.
  await c.create(createBody(fresh)).expect(201);
  const endpoint = await as(fresh.keys.sandbox)
    .post(PATH)
    .send({ url: 'http://localhost:9999/fresh', enabledEvents: ['*'] })
    .expect(201);
  const key = newKey();
  const created = await c.create(createBody(fresh), key).expect(201);
  const replayed = await c.create(createBody(fresh), key).expect(201);
  expect(replayed.headers['idempotent-replayed']).toBe('true');
  expect(await countRows(t.dataSource, 'authorizations', fresh.organizationId)).toBe(2);

  const events = await as(fresh.keys.sandbox).get(`/v1/events?limit=100`).expect(200);
  const deliveries = await as(fresh.keys.sandbox)
    .get(`${PATH}/${endpoint.body.id}/deliveries?limit=100`)
    .expect(200);
  const caseEvents = events.body.data.filter(
    (event: { authorizationId: string }) => event.authorizationId === created.body.id,
  );
  expect(caseEvents.length).toBeGreaterThan(0);
  expect(deliveries.body.data.map((d: { eventId: string }) => d.eventId)).toEqual(
    caseEvents.map((e: { id: string }) => e.id),
  );
  const jobs: Array<{ delivery: string; n: string }> = await t.dataSource.query(
    `SELECT data->>'deliveryId' AS delivery, count(*) AS n FROM pgboss.job
     WHERE name = 'deliver_webhook' AND data->>'organizationId' = $1 GROUP BY 1`,
    [fresh.organizationId],
  );
  expect(jobs.map((job) => [job.delivery, Number(job.n)]).sort()).toEqual(
    deliveries.body.data.map((d: { id: string }) => [d.id, 1]).sort(),
  );
});
