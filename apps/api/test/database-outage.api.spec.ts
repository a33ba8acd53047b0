import { bootstrapDatabase } from '@prior-auth/persistence-postgres';
import { listen, type RunningServer } from '../src/http-server';
import { BASE, createBody, newKey } from './authorization-helpers';
import { OwnedPostgres } from './support/owned-postgres';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * A real PostgreSQL this test owns (whatever DATABASE_URL says) is stopped and started again under a steady load
 * of creates and reads against a real HTTP server: every request during the outage is a retryable 503 with
 * Retry-After, the API recovers by itself, no acknowledged create is lost, and the outage costs a couple of log
 * lines, not one per request (docs/decisions/0015-hostile-input-and-outages.md).
 */

interface Outcome {
  kind: 'create' | 'read' | 'health';
  status: number;
  startedAt: number;
  endedAt: number;
  retryAfter: string | null;
  body: { id?: string; error?: { code: string; retryable: boolean } } | null;
}

/** Polls observable state (never a fixed sleep) until `ready` holds; fails after `timeoutMs`. */
async function waitFor(what: string, ready: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const WORKERS = 4;

describe('a database outage under load', () => {
  let postgres: OwnedPostgres;
  let t: TestApp;
  let running: RunningServer;
  let tenant: TestTenant;
  const logLines: string[] = [];

  beforeAll(async () => {
    postgres = await OwnedPostgres.start();
    const database = await bootstrapDatabase({
      databaseUrl: postgres.url,
      poolSize: 5,
      applicationName: 'prior-auth-outage-test',
    });
    t = await createTestApp({
      dataSource: database.dataSource,
      logLines,
      env: { DATABASE_POOL_SIZE: '5' },
    });
    tenant = await t.createTenant();
    running = await listen(t.app, 0, '127.0.0.1');
  }, 60_000);

  afterAll(async () => {
    await running?.close(1_000);
    await t?.close();
    await postgres?.dispose();
  }, 30_000);

  it('answers 503 + Retry-After while the database is down, recovers by itself and loses no acknowledged write', async () => {
    const base = `http://127.0.0.1:${running.port}`;
    const auth = { Authorization: `Bearer ${tenant.keys.sandbox}` };
    const outcomes: Outcome[] = [];
    const acknowledged: string[] = [];
    let loadRunning = true;
    // The API requests refused while the database was down: the tracker counts each (the health check's 503 is
    // the probe's own answer, not a refusal it counts).
    let refusedApiRequests = 0;

    const call = async (kind: Outcome['kind'], path: string, init: RequestInit = {}) => {
      const startedAt = Date.now();
      const res = await fetch(`${base}${path}`, init);
      const text = await res.text();
      const outcome: Outcome = {
        kind,
        status: res.status,
        startedAt,
        endedAt: Date.now(),
        retryAfter: res.headers.get('retry-after'),
        body: text ? JSON.parse(text) : null,
      };
      outcomes.push(outcome);
      return outcome;
    };

    const worker = async (index: number) => {
      for (let round = 0; loadRunning; round += 1) {
        const created = await call('create', BASE, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': newKey() },
          body: JSON.stringify(createBody(tenant)),
        });
        if (created.status === 201) acknowledged.push(created.body!.id!);
        const known = acknowledged[acknowledged.length - 1];
        if (known && round % 2 === 0) await call('read', `${BASE}/${known}`, { headers: auth });
        else await call('read', `${BASE}?limit=5`, { headers: auth });
        if (index === 0) await call('health', '/health');
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)));

    try {
      await waitFor('creates before the outage', () => acknowledged.length >= 10);

      await postgres.stop();
      const downAt = Date.now();
      const refusedSince = (since: number) =>
        outcomes.filter((o) => o.startedAt >= since && o.status === 503).length;
      await waitFor('503s during the outage', () => refusedSince(downAt) >= 200);

      const upAgainAt = Date.now();
      await postgres.restart();
      const restartedAt = Date.now();
      await waitFor('a create acknowledged after the restart', () =>
        outcomes.some((o) => o.kind === 'create' && o.status === 201 && o.startedAt >= restartedAt),
      );
      await waitFor('the end of the outage in the log', () =>
        logLines.some((line) => line.includes('database available again')),
      );

      // While the database was down (requests begun after it stopped, answered before it was started again),
      // every answer was the retryable 503 in the envelope, with Retry-After.
      const duringOutage = outcomes.filter((o) => o.startedAt >= downAt && o.endedAt <= upAgainAt);
      expect(duringOutage.length).toBeGreaterThanOrEqual(150);
      refusedApiRequests = duringOutage.filter((o) => o.kind !== 'health').length;
      for (const outcome of duringOutage) {
        expect({ kind: outcome.kind, status: outcome.status, retryAfter: outcome.retryAfter }).toEqual({
          kind: outcome.kind,
          status: 503,
          retryAfter: '1',
        });
        if (outcome.kind !== 'health')
          expect(outcome.body?.error).toMatchObject({ code: 'service_unavailable', retryable: true });
      }
      // Before, during and after (the stop and the start included): nothing but successes and 503s.
      expect(outcomes.filter((o) => o.status >= 500 && o.status !== 503)).toEqual([]);
      expect(outcomes.filter((o) => o.status >= 400 && o.status < 500)).toEqual([]);
    } finally {
      loadRunning = false;
      await load;
    }

    // No acknowledged create was lost.
    const reads = await Promise.all(
      acknowledged.map((id) => fetch(`${base}${BASE}/${id}`, { headers: auth }).then((r) => r.status)),
    );
    expect(reads.filter((status) => status !== 200)).toEqual([]);

    // The outage is two lines (its start and its end), however many requests it refused; access log aside.
    const outageLines = logLines
      .map((line) => JSON.parse(line) as { msg: string; level: number; refusedRequests?: number })
      .filter((line) => line.msg !== 'request');
    expect(outageLines.length).toBeLessThanOrEqual(4);
    const ended = outageLines.find((line) => line.msg === 'database available again');
    // One outage from the first refusal until the database answered again: every refusal seen in between is in
    // its count (those of requests in flight at the stop or the restart too, so it may be larger).
    expect(refusedApiRequests).toBeGreaterThan(0);
    expect(ended?.refusedRequests).toBeGreaterThanOrEqual(refusedApiRequests);
    console.info(
      `outage: ${outcomes.filter((o) => o.status === 503).length} requests answered 503 ` +
        `(${refusedApiRequests} API requests while it was down; the log counts ${ended?.refusedRequests}), ` +
        `${acknowledged.length} creates acknowledged, ${outageLines.length} log lines besides the access log: ` +
        outageLines.map((line) => line.msg).join(' | '),
    );
  }, 60_000);
});
