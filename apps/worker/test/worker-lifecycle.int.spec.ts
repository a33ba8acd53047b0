import { SandboxPayerPortal, sandboxReferenceNumber } from '@prior-auth/payer-portal';
import { PgJobWakeups } from '../src/job-notifications';
import { MemoryLogger } from './support/fakes';
import { Harness } from './support/harness';
import { FlakyPayerPortal, Gate, SpyPayerPortal } from './support/portals';

/* Wake-ups, retries, production without a portal, malformed jobs, shutdown and maintenance on PostgreSQL. */

let h: Harness;
let spy: SpyPayerPortal;

beforeEach(async () => {
  h = await Harness.open();
  spy = new SpyPayerPortal(new SandboxPayerPortal({ decisionDelayMs: 0 }));
});
afterEach(() => h.close());

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const IDLE = 60_000; // a poll interval no test waits for

describe('wake-ups', () => {
  it('a confirm wakes an idle worker at once: the enqueue NOTIFYs at commit, no poll needed', async () => {
    await h.startWorker({
      portal: spy,
      pollIntervalMs: IDLE,
      pipelineSettings: { sandbox: { decisionPollIntervalMs: 0 } },
    });
    await sleep(100); // the first claim after start has found nothing; the next poll is far away
    const ready = await h.readyCase('SBX-APPROVED');
    const confirmed = Date.now();
    await h.confirm(ready.id);
    const done = await h.waitForStatus(ready.id, 'completed', 5_000);
    expect(done.outcome).toBe('approved');
    expect(Date.now() - confirmed).toBeLessThan(3_000);
  });

  it('another worker’s notify wakes it, also after its listening connection was lost', async () => {
    const { logger } = await h.startWorker({
      portal: spy,
      pollIntervalMs: IDLE,
      pipelineSettings: { sandbox: { decisionPollIntervalMs: 0 } },
    });
    const other = new PgJobWakeups({
      connectionString: process.env.DATABASE_URL!,
      dataSource: h.dataSource,
      logger: new MemoryLogger(),
    });
    await sleep(100);

    await h.dataSource.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'prior-auth-worker-listen' AND pid <> pg_backend_pid()`,
    );
    const lost = Date.now();
    while (!logger.messages('warn').includes('job notifications lost; polling until reconnected')) {
      if (Date.now() - lost > 5_000) throw new Error('the lost connection was not noticed');
      await sleep(20);
    }
    await sleep(1_000); // reconnected after 500 ms

    const ready = await h.readyCase('SBX-DENIED');
    await h.confirm(ready.id);
    await other.notify();
    expect((await h.waitForStatus(ready.id, 'completed', 5_000)).outcome).toBe('denied');
  });
});

describe('failures', () => {
  it('retries transient portal errors with backoff; the payer still gets one submission', async () => {
    const flaky = new SpyPayerPortal(
      new FlakyPayerPortal(new SandboxPayerPortal({ decisionDelayMs: 0 }), [
        'discover',
        'submit',
        'pollDecision',
      ]),
    );
    await h.startWorker({ portal: flaky });
    const ready = await h.readyCase('SBX-APPROVED');
    await h.confirm(ready.id);

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    expect(flaky.callsTo('submit', ready.id).map((c) => c.result)).toEqual(['error', 'ok']);
    expect(flaky.submissions(ready.id)).toHaveLength(1);
    // The retry after the boundary asked the payer first (nothing there), then submitted with the same key.
    expect(flaky.callsTo('findSubmission', ready.id)).toHaveLength(1);
    expect(done.submission.payerReceipt?.referenceNumber).toBe(
      sandboxReferenceNumber(flaky.submissions(ready.id)[0]!.idempotencyKey!),
    );

    const jobs = await h.jobs(ready.id);
    expect(jobs.map((j) => [j.type, j.attempts])).toEqual([
      ['process', 3],
      ['poll_decision', 2],
    ]);
    expect(jobs.every((j) => j.done_at !== null && j.last_error?.startsWith('payer_portal_timeout:'))).toBe(
      true,
    );
  });

  it('production has no payer portal: its cases fail with payer_portal_unavailable, never reaching the sandbox', async () => {
    const production = await h.inEnvironment('production');
    try {
      await h.startWorker({ portal: spy });
      const ready = await production.readyCase('SBX-APPROVED');
      await production.confirm(ready.id);

      const done = await production.waitForStatus(ready.id, 'completed');
      expect(done.outcome).toBe('failed');
      expect(done.failure).toMatchObject({ code: 'payer_portal_unavailable' });
      expect(spy.calls.filter((c) => c.authorizationId === ready.id)).toEqual([]);
    } finally {
      await production.close();
    }
  });

  it('gives up a job that can never run (a malformed payload) without retrying it', async () => {
    const { settled } = await h.startWorker({ portal: spy });
    await h.dataSource.query(
      `INSERT INTO jobs (organization_id, environment, type, authorization_id, run_at, max_attempts, payload, created_at)
       VALUES ($1, 'sandbox', 'reconcile_handoff', 'auth_missing', now(), 10, '{}', now())`,
      [h.organizationId],
    );
    const deadline = Date.now() + 5_000;
    while (!settled.some((s) => s.job.authorizationId === 'auth_missing')) {
      if (Date.now() > deadline) throw new Error('job not run');
      await sleep(20);
    }
    const [job] = await h.jobs('auth_missing');
    expect(job).toMatchObject({
      attempts: 1,
      done_at: null,
      last_error: expect.stringMatching(/^invalid_job_payload:/),
    });
    expect(job!.failed_at).not.toBeNull();
  });
});

describe('shutdown', () => {
  it('releases a step that outlives the grace period; another worker finishes it with the same submission key', async () => {
    const ready = await h.readyCase('SBX-APPROVED');
    const gate = new Gate();
    let holding = true;
    spy.before = async (method, portalCase) => {
      if (holding && method === 'submit' && portalCase.authorizationId === ready.id) await gate.wait();
    };
    const stopping = await h.startWorker({ portal: spy });
    await h.confirm(ready.id);
    await gate.arrived();

    await stopping.worker.stop({ graceMs: 50 });
    const [released] = await h.jobs(ready.id);
    expect(released).toMatchObject({ type: 'process', locked_by: null, done_at: null, failed_at: null });
    expect(released!.last_error).toMatch(/^worker_shutdown/);

    holding = false;
    await h.startWorker({ portal: spy });
    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    gate.open(); // the stopped worker's step ends late and finds the case moved on
    await sleep(200);

    const keys = spy.callsTo('submit', ready.id).map((c) => c.idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1); // a repeat under the same key is the same submission at the payer
    const events = await h.eventTypes(ready.id);
    expect(events.filter((e) => e === 'authorization.receipt_recorded')).toHaveLength(1);
    expect((await h.get(ready.id)).status).toBe('completed');
  });
});

describe('maintenance', () => {
  it('purges expired idempotency records periodically and keeps live ones', async () => {
    const insert = (key: string, expiresInMs: number) =>
      h.dataSource.query(
        `INSERT INTO idempotency_records (organization_id, environment, key, fingerprint, state, response_status,
           response_headers, response_body, created_at, completed_at, expires_at)
         VALUES ($1, 'sandbox', $2, 'fp', 'completed', 200, '{}', '{}', now() - interval '2 days',
           now() - interval '2 days', now() + ($3 || ' milliseconds')::interval)`,
        [h.organizationId, key, String(expiresInMs)],
      );
    await insert('expired-key', -60_000);
    await insert('live-key', 24 * 60 * 60_000);

    await h.startWorker({ portal: spy, idempotencyPurgeIntervalMs: 50 });
    const deadline = Date.now() + 5_000;
    let keys: string[] = [];
    do {
      await sleep(25);
      const rows: Array<{ key: string }> = await h.dataSource.query(
        'SELECT key FROM idempotency_records WHERE organization_id = $1 ORDER BY key',
        [h.organizationId],
      );
      keys = rows.map((r) => r.key);
    } while (keys.includes('expired-key') && Date.now() < deadline);
    expect(keys).toEqual(['live-key']);
  });
});
