import { JOB_TABLE, PostgresIdempotencyStore, TypeOrmTransactions } from '@prior-auth/persistence-postgres';
import { fingerprint } from '../src/http/command-runner';
import {
  ALT_BASE,
  client,
  countRows,
  CPAP_SELECTION,
  createBody,
  newKey,
  readyToConfirm,
  sandboxScope,
  type Client,
} from './authorization-helpers';
import { connectPayerPortal, storePortalCredentials } from './portal-access-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

describe('Idempotency-Key (decision 0023)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const freshTenant = async (): Promise<{ tenant: TestTenant; c: Client }> => {
    const tenant = await t.createTenant();
    return { tenant, c: client(t.app, tenant.keys.sandbox) };
  };

  it('replays a completed create byte for byte, with Idempotent-Replayed, and creates one authorization', async () => {
    const { tenant, c } = await freshTenant();
    const key = newKey();
    const first = await c.create(createBody(tenant), key).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const replay = await c.create(createBody(tenant), key).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers.location).toBe(first.headers.location);
    expect(replay.headers.etag).toBe('"1"');
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    // Key order and whitespace do not change the fingerprint (canonical JSON); the path family does not either.
    const reordered = JSON.stringify({
      policy: { finalSubmission: 'automatic' },
      templateSelection: { ...CPAP_SELECTION },
      providerNpi: tenant.npi,
    });
    const again = await c.create(JSON.parse(reordered), key, ALT_BASE).expect(201);
    expect(again.text).toBe(first.text);
    expect(await countRows(t.dataSource, 'authorizations', tenant.organizationId)).toBe(1);
  });

  it("commits a create, its answer and the key's lock as one statement, with no transaction around it", async () => {
    const { tenant, c } = await freshTenant();
    // A tenant's first create reads its provider registration and the payer catalog, cached for seconds after.
    await c.create(createBody(tenant), newKey()).expect(201);
    const sent = await recordStatements(() => c.create(createBody(tenant), newKey()).expect(201));
    const create = sent.filter((sql) => sql.includes('INSERT INTO authorizations'));
    expect(create).toHaveLength(1);
    expect(create[0]).toContain('INSERT INTO idempotency_records');
    expect(create[0]).toContain('pg_try_advisory_xact_lock');
    expect(create[0]).toContain('refuse_commit');
    expect(sent.filter((sql) => /^\s*(START TRANSACTION|BEGIN|COMMIT)/i.test(sql))).toEqual([]);
  });

  /** Every statement the API's pool sends while `work` runs (other tests' requests in this file run in turn). */
  async function recordStatements(work: () => Promise<unknown>): Promise<string[]> {
    type Queryable = { query: (...args: unknown[]) => unknown };
    type Listener = (client: Queryable) => void;
    const pool = (
      t.dataSource.driver as unknown as {
        master: {
          on: (event: 'acquire', listener: Listener) => void;
          off: (event: 'acquire', listener: Listener) => void;
        };
      }
    ).master;
    const sent: string[] = [];
    const wrapped = new Map<Queryable, Queryable['query']>();
    const record = (client: Queryable) => {
      if (wrapped.has(client)) return;
      const query = client.query;
      wrapped.set(client, query);
      client.query = (...args: unknown[]) => {
        sent.push(typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text));
        return query.apply(client, args);
      };
    };
    pool.on('acquire', record);
    try {
      await work();
    } finally {
      pool.off('acquire', record);
      for (const [client, query] of wrapped) client.query = query;
    }
    return sent;
  }

  it('answers idempotency_key_reused for the same key with another body, and changes nothing', async () => {
    const { tenant, c } = await freshTenant();
    const key = newKey();
    await c.create(createBody(tenant), key).expect(201);
    const reused = await c.create(createBody(tenant, { portalAuthMode: 'automated' }), key).expect(409);
    expect(reused.body.error).toMatchObject({ code: 'idempotency_key_reused', retryable: false });
    expect(await countRows(t.dataSource, 'authorizations', tenant.organizationId)).toBe(1);
  });

  it('stores domain errors and replays them; validation failures are not stored', async () => {
    const { tenant, c } = await freshTenant();
    const key = newKey();
    const unsupported = createBody(tenant, {
      templateSelection: { ...CPAP_SELECTION, serviceCode: 'E9999' },
    });
    const first = await c.create(unsupported, key).expect(409);
    expect(first.body.error.code).toBe('unsupported_template_selection');
    const replay = await c.create(unsupported, key).expect(409);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);

    const other = newKey();
    await c.create(createBody(tenant, { providerNpi: 'x' }), other).expect(422);
    await c.create(createBody(tenant, { policy: {} }), other).expect(400);
    expect(await countRows(t.dataSource, 'idempotency_records', tenant.organizationId)).toBe(1);
    const created = await c.create(createBody(tenant), other).expect(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
  });

  it('20 parallel creates with one key: one authorization; every answer the same 201 or idempotency_key_in_use', async () => {
    const { tenant, c } = await freshTenant();
    const key = newKey();
    const responses = await Promise.all(Array.from({ length: 20 }, () => c.create(createBody(tenant), key)));
    const created = responses.filter((r) => r.status === 201);
    const inUse = responses.filter((r) => r.status === 409);
    expect(created.length + inUse.length).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const res of created) expect(res.text).toBe(created[0]!.text);
    for (const res of inUse) {
      expect(res.body.error).toMatchObject({ code: 'idempotency_key_in_use', retryable: true });
      expect(res.headers['retry-after']).toBe('1');
    }
    expect(await countRows(t.dataSource, 'authorizations', tenant.organizationId)).toBe(1);
    const replay = await c.create(createBody(tenant), key).expect(201);
    expect(replay.text).toBe(created[0]!.text);
  });

  it('claims a key across API processes: parallel creates through two instances make one authorization', async () => {
    // A second instance with its own connection pool, as a second process on the same database would have.
    const other = await createTestApp();
    try {
      const { tenant } = await freshTenant();
      const key = newKey();
      const clients = [client(t.app, tenant.keys.sandbox), client(other.app, tenant.keys.sandbox)];
      const responses = await Promise.all(
        Array.from({ length: 16 }, (_, i) => clients[i % 2]!.create(createBody(tenant), key)),
      );
      const created = responses.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      for (const res of created) expect(res.text).toBe(created[0]!.text);
      for (const res of responses.filter((r) => r.status !== 201)) {
        expect(res.status).toBe(409);
        expect(res.body.error).toMatchObject({ code: 'idempotency_key_in_use', retryable: true });
      }
      expect(await countRows(t.dataSource, 'authorizations', tenant.organizationId)).toBe(1);
      const replay = await clients[1]!.create(createBody(tenant), key).expect(201);
      expect(replay.text).toBe(created[0]!.text);
    } finally {
      await other.close();
    }
  });

  it('answers idempotency_key_in_use while the same request runs, without storing that answer', async () => {
    const { tenant, c } = await freshTenant();
    const key = newKey();
    const body = createBody(tenant);
    // Another process runs exactly this request: its transaction holds the key's claim until it ends.
    const store = new PostgresIdempotencyStore(t.dataSource);
    let end!: () => void;
    const ending = new Promise<void>((resolve) => (end = resolve));
    let claimed!: (kind: string) => void;
    const claiming = new Promise<string>((resolve) => (claimed = resolve));
    const holder = new TypeOrmTransactions(t.dataSource).run(async (tx) => {
      const claim = await store.claim(tx, {
        scope: sandboxScope(tenant),
        key,
        fingerprint: fingerprint('POST', {
          operation: 'authorizations.create',
          idempotencyKey: key,
          params: {},
          body,
          ifMatch: null,
        }),
        now: new Date(),
      });
      claimed(claim.kind);
      await ending;
    });
    expect(await claiming).toBe('claimed');
    const busy = await c.create(body, key).expect(409);
    expect(busy.body.error).toMatchObject({ code: 'idempotency_key_in_use', retryable: true });
    expect(busy.headers['retry-after']).toBe('1');
    expect(await countRows(t.dataSource, 'authorizations', tenant.organizationId)).toBe(0);
    // The holder ends without an answer (its request failed, or its process died): the key runs the command now.
    end();
    await holder;
    await c.create(body, key).expect(201);
  });

  it('replays confirm and cancel by If-Match + body, even after the version moved on', async () => {
    const { tenant, c } = await freshTenant();
    const { authorization } = await readyToConfirm(c, tenant);
    const ifMatch = `"${authorization.version}"`;
    const key = newKey();
    const confirmed = await c
      .confirm(authorization.id, ifMatch, { nextActionId: authorization.nextAction.id }, key)
      .expect(200);
    const replay = await c
      .confirm(authorization.id, ifMatch, { nextActionId: authorization.nextAction.id }, key)
      .expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.etag).toBe(confirmed.headers.etag);
    expect(replay.text).toBe(confirmed.text);
    // A different If-Match is a different request.
    const otherVersion = await c
      .confirm(
        authorization.id,
        `"${confirmed.body.version}"`,
        { nextActionId: authorization.nextAction.id },
        key,
      )
      .expect(409);
    expect(otherVersion.body.error.code).toBe('idempotency_key_reused');
    const [jobs] = await t.dataSource.query(
      `SELECT count(*)::int AS count FROM ${JOB_TABLE} WHERE data->>'organizationId' = $1`,
      [tenant.organizationId],
    );
    expect(jobs.count).toBe(1);

    const cancelKey = newKey();
    const canceled = await c.cancel(authorization.id, `"${confirmed.body.version}"`, cancelKey).expect(200);
    const cancelReplay = await c
      .cancel(authorization.id, `"${confirmed.body.version}"`, cancelKey)
      .expect(200);
    expect(cancelReplay.text).toBe(canceled.text);
    expect(cancelReplay.headers['idempotent-replayed']).toBe('true');
  });

  it('stores version conflicts; a key used on another authorization is reused', async () => {
    const { tenant, c } = await freshTenant();
    const a = (await c.create(createBody(tenant)).expect(201)).body;
    const b = (await c.create(createBody(tenant)).expect(201)).body;
    const key = newKey();
    const stale = await c.cancel(a.id, '"5"', key).expect(409);
    expect(stale.body.error.code).toBe('version_conflict');
    const replay = await c.cancel(a.id, '"5"', key).expect(409);
    expect(replay.text).toBe(stale.text);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const elsewhere = await c.cancel(b.id, '"5"', key).expect(409);
    expect(elsewhere.body.error.code).toBe('idempotency_key_reused');
  });

  it('scopes keys to the organization and environment', async () => {
    const { tenant, c } = await freshTenant();
    const other = await t.createTenant();
    // Production serves the route once the payer's portal is connected and the organization signed up.
    await connectPayerPortal(t.dataSource, CPAP_SELECTION.payerId);
    await storePortalCredentials(t.dataSource, tenant.organizationId, CPAP_SELECTION.payerId);
    const key = newKey();
    const mine = await c.create(createBody(tenant), key).expect(201);
    const theirs = await client(t.app, other.keys.sandbox).create(createBody(other), key).expect(201);
    const production = await client(t.app, tenant.keys.production)
      .create(createBody(tenant), key)
      .expect(201);
    expect(new Set([mine.body.id, theirs.body.id, production.body.id]).size).toBe(3);
    expect(production.headers['idempotent-replayed']).toBeUndefined();
  });

  it('accepts a key on patch answers (optional there) and validates its format everywhere', async () => {
    const { tenant, c } = await freshTenant();
    const id = (await c.create(createBody(tenant)).expect(201)).body.id;
    const key = newKey();
    const body = {
      questionnaireResponse: { item: [{ linkId: 'patient.memberId', answer: [{ valueString: 'M1' }] }] },
    };
    const first = await c.patch(id, '"1"', body).set('Idempotency-Key', key).expect(200);
    const replay = await c.patch(id, '"1"', body).set('Idempotency-Key', key).expect(200);
    expect(replay.text).toBe(first.text);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    for (const bad of ['', 'x'.repeat(256), 'tab\tinside', 'caf\u00e9']) {
      const res = await c.create(createBody(tenant), bad).expect(422);
      expect(res.body.error.issues).toEqual([
        expect.objectContaining({ errorType: expect.any(String), location: ['headers', 'Idempotency-Key'] }),
      ]);
    }
    await c.create(createBody(tenant), 'x'.repeat(255)).expect(201);
  });
});
