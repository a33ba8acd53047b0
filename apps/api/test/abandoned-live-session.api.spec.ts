import { type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { EndAbandonedLiveSessionsUseCase } from '@prior-auth/domain';
import { SignedAccessGrants } from '@prior-auth/grants';
import { SandboxRuntimeSessions } from '@prior-auth/payer-portal';
import {
  KeysetCursors,
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  TypeOrmRuntimeSessionLedger,
  TypeOrmUnitOfWork,
} from '@prior-auth/persistence-postgres';
import { RandomIdGenerator, TokenSigner } from '@prior-auth/platform';
import { forkScript } from '@prior-auth/test-support';
import request from 'supertest';
import { BASE, client, createBody, type Client } from './authorization-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * Decision 0039: a live session whose owning process was killed (SIGKILL: nothing of it runs to end the
 * session) is ended by the sweep once its beats stopped, with the input sent to it that nobody took; its grant
 * then answers 409 access_grant_subject_inactive. The owner is a real process with a real browser page
 * (test/support/live-session-owner.child.ts), as a worker's portal run is.
 */

/**
 * The sweep is global and other suites share the database: their live sessions beat every 10 s, so the test's
 * sweep only ends sessions silent for 30 s, which no living owner is.
 */
const ABANDONED_AFTER_MS = 30_000;

let t: TestApp;
let tenant: TestTenant;
let c: Client;
let owner: ChildProcess | null = null;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await t.createTenant();
  c = client(t.app, tenant.keys.sandbox);
});

afterAll(async () => {
  if (owner !== null && owner.exitCode === null && owner.signalCode === null) owner.kill('SIGKILL');
  await t.close();
});

const auth = () => ({ Authorization: `Bearer ${tenant.keys.sandbox}` });
const pathOf = (url: string) => new URL(url).pathname;

async function lastBeat(sessionId: string): Promise<Date | null> {
  const rows = (await t.dataSource.query('SELECT heartbeat_at FROM runtime_sessions WHERE id = $1', [
    sessionId,
  ])) as Array<{ heartbeat_at: Date | null }>;
  return rows[0]?.heartbeat_at ?? null;
}

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((wait) => setTimeout(wait, 250));
  }
}

it('ends the live session of a killed owner once its beats stopped; its grant then answers 409', async () => {
  const created = await c.create(createBody(tenant)).expect(201);
  const authorizationId = created.body.id as string;

  owner = forkScript(
    resolve(__dirname, 'support/live-session-owner.child.ts'),
    [tenant.organizationId, authorizationId, '500'],
    {
      PATH: process.env.PATH,
      DATABASE_URL: process.env.DATABASE_URL,
      API_TEST_BROWSER: process.env.API_TEST_BROWSER,
    },
  );
  const child = owner;
  const sessionId = await new Promise<string>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`the session owner exited (${code})`)));
    child.once('message', (message: { event: string; sessionId: string }) => done(message.sessionId));
  });

  // While its owner lives the session beats, is live, and a grant for it opens.
  const first = (await lastBeat(sessionId))!;
  expect(first).toBeInstanceOf(Date);
  await until('a second beat', async () => ((await lastBeat(sessionId))! > first ? true : null), 30_000);
  const live = await request(t.app).get(`${BASE}/${authorizationId}/live-session`).set(auth()).expect(200);
  expect(live.body).toMatchObject({ available: true, status: 'active' });
  const grant = await request(t.app)
    .post(`${BASE}/${authorizationId}/live-session/access-grants`)
    .set({ ...auth(), 'Idempotency-Key': randomUUID() })
    .expect(201);
  await request(t.app).get(pathOf(grant.body.url)).expect(303);

  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGKILL');
  await exited;
  const killedAt = Date.now();

  // Input sent after the owner died (an interactive view does not know) stays until the sweep.
  const inputs = new PostgresLiveSessionInputs(t.dataSource);
  await inputs.send(sessionId, { kind: 'text', text: 'customer password' });
  const pending = async () =>
    (
      (await t.dataSource.query(
        'SELECT count(*)::int AS n FROM runtime_session_inputs WHERE session_id = $1',
        [sessionId],
      )) as Array<{ n: number }>
    )[0]!.n;
  expect(await pending()).toBe(1);

  // The sweep as the worker composes it (apps/worker/src/composition.ts).
  const ledger = new TypeOrmRuntimeSessionLedger(t.dataSource);
  const signer = new TokenSigner(t.config.SIGNING_SECRET!);
  const [clock, ids, baseUrl] = [{ now: () => new Date() }, new RandomIdGenerator(), 'http://127.0.0.1'];
  const sweep = new EndAbandonedLiveSessionsUseCase(
    {
      unitOfWork: new TypeOrmUnitOfWork(t.dataSource, {
        cursors: new KeysetCursors(signer),
        jobBoss: t.jobBoss,
        // A handoff the sweep closes revokes its grants in the close's transaction.
        grants: (ledger) => new SignedAccessGrants({ ledger, signer, baseUrl, clock, ids }),
      }),
      clock,
      ids,
      runtimeSessions: new SandboxRuntimeSessions({ ledger, signer, baseUrl, clock, ids }),
      ledger,
      frames: new PostgresLiveSessionFrames(t.dataSource),
      inputs,
    },
    { abandonedAfterMs: ABANDONED_AFTER_MS },
  );
  // Nothing of it runs after the kill: no beat moves, and the session is live until the sweep ends it.
  const silentSince = (await lastBeat(sessionId))!;
  await until(
    'the sweep to end the session',
    async () => ((await sweep.execute()).includes(sessionId) ? true : null),
    ABANDONED_AFTER_MS + 60_000,
  );
  expect(Date.now() - killedAt).toBeGreaterThanOrEqual(ABANDONED_AFTER_MS - 2_000);
  expect(await lastBeat(sessionId)).toEqual(silentSince);
  expect(await ledger.find(sessionId)).toMatchObject({ status: 'ended' });
  expect(await pending()).toBe(0);

  const after = await request(t.app).get(`${BASE}/${authorizationId}/live-session`).set(auth()).expect(200);
  expect(after.body.available).toBe(false);
  const inactive = await request(t.app).get(pathOf(grant.body.url)).expect(409);
  expect(inactive.body.error.code).toBe('access_grant_subject_inactive');
  // A second sweep finds it ended already.
  expect(await sweep.execute()).not.toContain(sessionId);
}, 150_000);
