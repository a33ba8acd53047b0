import request from 'supertest';
import { asWorker, BASE, client, createBody, sandboxScope } from './authorization-helpers';
import { createTestApp, type TestApp } from './test-app';

/*
 * A retrieve sends the text this process last presented for the case only while the stored version is the one
 * it was made from (docs/performance.md): every change, whoever made it, shows at once, in every shape, and
 * never across tenants.
 */

let first: TestApp;
let second: TestApp;
beforeAll(async () => {
  first = await createTestApp();
  second = await createTestApp();
});
afterAll(async () => {
  await first.close();
  await second.close();
});

const LEGACY = '2024-01-01';

it('answers a repeated retrieve with the same body and ETag, and a change at once', async () => {
  const tenant = await first.createTenant();
  const c = client(first.app, tenant.keys.sandbox);
  const created = await c.create(createBody(tenant)).expect(201);
  const id = created.body.id as string;

  const once = await c.get(id).expect(200);
  const twice = await c.get(id).expect(200);
  expect(twice.headers.etag).toBe('"1"');
  expect(twice.headers['content-type']).toBe(once.headers['content-type']);
  expect(twice.text).toBe(once.text);
  expect(once.body).toEqual(created.body);

  await c
    .patch(id, '"1"', {
      questionnaireResponse: { item: [{ linkId: 'patient.memberId', answer: [{ valueString: 'M-1' }] }] },
    })
    .expect(200);
  const patched = await c.get(id).expect(200);
  expect(patched.headers.etag).toBe('"2"');
  expect(patched.body.questionnaireResponse.item).toContainEqual({
    linkId: 'patient.memberId',
    answer: [{ valueString: 'M-1' }],
  });
});

it('shows a change made by another process (the worker, another API instance) on the next retrieve', async () => {
  const tenant = await first.createTenant();
  const c = client(first.app, tenant.keys.sandbox);
  const id = (await c.create(createBody(tenant)).expect(201)).body.id as string;
  expect((await c.get(id).expect(200)).body.status).toBe('requires_input');

  const other = client(second.app, tenant.keys.sandbox);
  await other
    .patch(id, '"1"', {
      questionnaireResponse: { item: [{ linkId: 'patient.memberId', answer: [{ valueString: 'M-2' }] }] },
    })
    .expect(200);
  const patched = await c.get(id).expect(200);
  expect(patched.headers.etag).toBe('"2"');
  expect(patched.text).toBe((await other.get(id).expect(200)).text);

  await asWorker(first.dataSource, sandboxScope(tenant), id, (authorization, ctx) =>
    authorization.cancel(ctx),
  );
  const canceled = await c.get(id).expect(200);
  expect(canceled.headers.etag).toBe('"3"');
  expect(canceled.body.status).toBe('canceled');
});

it('keeps each API version its own shape of the same case', async () => {
  const tenant = await first.createTenant();
  const c = client(first.app, tenant.keys.sandbox);
  const id = (await c.create(createBody(tenant)).expect(201)).body.id as string;
  const get = (version: string) =>
    request(first.app)
      .get(`${BASE}/${id}`)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .set('Prior-Auth-Version', version);

  for (let round = 0; round < 2; round += 1) {
    const current = await get('2025-01-01').expect(200);
    const legacy = await get(LEGACY).expect(200);
    expect(current.body.status).toBe('requires_input');
    expect(legacy.body.status).toBe('draft');
    expect(legacy.headers['prior-auth-version']).toBe(LEGACY);
  }
});

it('never answers another tenant with a case this process holds', async () => {
  const owner = await first.createTenant();
  const stranger = await first.createTenant();
  const c = client(first.app, owner.keys.sandbox);
  const id = (await c.create(createBody(owner)).expect(201)).body.id as string;
  await c.get(id).expect(200);

  const refused = await client(first.app, stranger.keys.sandbox).get(id).expect(404);
  expect(refused.body.error.code).toBe('authorization_not_found');
  // The same organization's production environment is another tenant too.
  await client(first.app, owner.keys.production).get(id).expect(404);
});

it('lists each case as retrieve shows it, a change included at once', async () => {
  const tenant = await first.createTenant();
  const c = client(first.app, tenant.keys.sandbox);
  const id = (await c.create(createBody(tenant)).expect(201)).body.id as string;
  const before = await c.list('?limit=5').expect(200);
  expect(before.body.data).toEqual([(await c.get(id).expect(200)).body]);
  expect(before.body.pagination).toEqual({ nextCursor: null });

  await asWorker(first.dataSource, sandboxScope(tenant), id, (authorization, ctx) =>
    authorization.cancel(ctx),
  );
  const after = await c.list('?limit=5').expect(200);
  expect(after.body.data).toHaveLength(1);
  expect(after.body.data[0]).toMatchObject({ id, version: 2, status: 'canceled' });
  expect(after.body.data[0]).toEqual((await c.get(id).expect(200)).body);
});

it('lists the same text whether this process holds every case, some or none, in each API version', async () => {
  const tenant = await first.createTenant();
  const c = client(first.app, tenant.keys.sandbox);
  const other = client(second.app, tenant.keys.sandbox);
  const ids: string[] = [];
  for (let index = 0; index < 3; index += 1) {
    ids.push((await c.create(createBody(tenant)).expect(201)).body.id as string);
  }
  const [oldest, middle] = ids as [string, string, string];
  // This process holds the oldest at its stored version and the middle at a version since changed elsewhere;
  // the newest it has never presented.
  await c.get(oldest).expect(200);
  await c.get(middle).expect(200);
  await other
    .patch(middle, '"1"', {
      questionnaireResponse: { item: [{ linkId: 'patient.memberId', answer: [{ valueString: 'M-3' }] }] },
    })
    .expect(200);

  const list = (app: TestApp, version: string) =>
    request(app.app)
      .get(`${BASE}?limit=10`)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .set('Prior-Auth-Version', version)
      .expect(200);
  for (const version of ['2025-01-01', LEGACY]) {
    const some = await list(first, version);
    expect(some.body.data.map((item: { id: string; version: number }) => [item.id, item.version])).toEqual([
      [ids[2], 1],
      [middle, 2],
      [oldest, 1],
    ]);
    // The second process held none of them in this version (a patch answer is not kept).
    expect((await list(second, version)).text).toBe(some.text);
    // Now the first holds every one of them.
    expect((await list(first, version)).text).toBe(some.text);
    const retrieved = await request(first.app)
      .get(`${BASE}/${middle}`)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .set('Prior-Auth-Version', version)
      .expect(200);
    expect(some.body.data[1]).toEqual(retrieved.body);
  }
});
