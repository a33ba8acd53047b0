import { PayerPortalError } from '@prior-auth/domain';
import { SandboxPayerPortal, sandboxReferenceNumber } from '@prior-auth/payer-portal';
import { PgJobWakeups } from '../src/job-notifications';
import { MemoryLogger } from './support/fakes';
import { Harness } from './support/harness';
import { FlakyPayerPortal, Gate, SlowPayerPortal, SpyPayerPortal } from './support/portals';

/*
 * Wake-ups, retries, production without a portal, malformed jobs, leases, shutdown and maintenance on
 * PostgreSQL.
 */

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

  it('a case whose processing keeps failing before the final boundary ends as failed, not stuck in processing', async () => {
    spy.before = async (method) => {
      if (method === 'discover') {
        throw new PayerPortalError('payer_portal_timeout', 'The payer portal timed out.', {
          transient: true,
        });
      }
    };
    const ready = await h.readyCase('SBX-APPROVED');
    await h.confirm(ready.id);
    await h.dataSource.query(`UPDATE jobs SET max_attempts = 2 WHERE authorization_id = $1`, [ready.id]);
    await h.startWorker({ portal: spy });

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('failed');
    expect(done.failure).toMatchObject({ code: 'processing_retries_exhausted' });
    expect(spy.submissions(ready.id)).toEqual([]);
    const [process] = await h.jobs(ready.id);
    expect(process).toMatchObject({ attempts: 2, done_at: null });
    expect(process!.last_error).toMatch(/^payer_portal_timeout:/);
    expect(process!.failed_at).not.toBeNull();
  });

  it('a case whose submission may have reached the payer is reconciled when its process job gives up, never failed', async () => {
    const flaky = new SpyPayerPortal(
      new FlakyPayerPortal(new SandboxPayerPortal({ decisionDelayMs: 0 }), ['submit']),
    );
    const ready = await h.readyCase('SBX-APPROVED');
    await h.confirm(ready.id);
    // A single attempt: the failed submit is the process job's last.
    await h.dataSource.query(`UPDATE jobs SET max_attempts = 1 WHERE authorization_id = $1`, [ready.id]);
    const { settled } = await h.startWorker({ portal: flaky });

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    const keys = flaky.callsTo('submit', ready.id).map((c) => c.idempotencyKey);
    expect(flaky.callsTo('submit', ready.id).map((c) => c.result)).toEqual(['error', 'ok']);
    expect(new Set(keys).size).toBe(1);
    expect(flaky.callsTo('findSubmission', ready.id)).toHaveLength(1); // asked before submitting again
    const jobs = await h.jobs(ready.id);
    expect(jobs.map((j) => j.type)).toEqual(['process', 'reconcile', 'poll_decision']);
    expect(jobs[0]!.failed_at).not.toBeNull();
    expect(settled.find((s) => s.job.id === jobs[0]!.id)?.settlement).toMatchObject({
      status: 'gave_up',
      consequence: 'reconcile_scheduled',
    });
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

describe('leases', () => {
  it('a step that outlives its lease is not run twice: its worker keeps renewing the lease', async () => {
    const LEASE_MS = 300;
    // The submission takes four leases; without renewal the other worker would take the job over and submit again.
    const slow = new SpyPayerPortal(
      new SlowPayerPortal(new SandboxPayerPortal({ decisionDelayMs: 0 }), { submit: 4 * LEASE_MS }),
    );
    const workers = [
      await h.startWorker({ portal: slow, leaseMs: LEASE_MS }),
      await h.startWorker({ portal: slow, leaseMs: LEASE_MS }),
    ];
    const ready = await h.readyCase('SBX-APPROVED');
    await h.confirm(ready.id);

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    expect(slow.callsTo('submit', ready.id)).toHaveLength(1);
    expect(slow.callsTo('findSubmission', ready.id)).toEqual([]); // no second run asking the payer first
    const [process] = await h.jobs(ready.id);
    expect(process).toMatchObject({ type: 'process', attempts: 1, last_error: null });
    const settlements = workers.flatMap((w) => w.settled).filter((s) => s.job.id === process!.id);
    expect(settlements.map((s) => s.settlement)).toEqual([
      { status: 'completed', outcome: 'receipt_recorded', leaseLost: false },
    ]);
    const warnings = workers.flatMap((w) => w.logger.messages('warn'));
    expect(warnings.filter((m) => m.includes('lease'))).toEqual([]);
  });
});

describe('shutdown', () => {
  it('releases a step that outlives the grace period without using up its attempt; another worker finishes it with the same submission key', async () => {
    const ready = await h.readyCase('SBX-APPROVED');
    await h.confirm(ready.id);
    // The final attempt: a release that counted it would leave the job to fail.
    await h.dataSource.query(`UPDATE jobs SET max_attempts = 1 WHERE authorization_id = $1`, [ready.id]);
    const gate = new Gate();
    let holding = true;
    spy.before = async (method, portalCase) => {
      if (holding && method === 'submit' && portalCase.authorizationId === ready.id) await gate.wait();
    };
    const stopping = await h.startWorker({ portal: spy });
    await gate.arrived();

    await stopping.worker.stop({ graceMs: 50 });
    const [released] = await h.jobs(ready.id);
    expect(released).toMatchObject({
      type: 'process',
      attempts: 0,
      max_attempts: 1,
      locked_by: null,
      locked_until: null,
      done_at: null,
      failed_at: null,
    });
    expect(released!.last_error).toMatch(/^worker_shutdown/);
    expect(released!.run_at.getTime()).toBeLessThanOrEqual(Date.now());

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
    const [process] = await h.jobs(ready.id);
    expect(process).toMatchObject({ attempts: 1, failed_at: null });
    expect(process!.done_at).not.toBeNull();
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

    await h.startWorker({ portal: spy, purgeIntervalMs: 50 });
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

  it('purges finished jobs past their retention and keeps the rest', async () => {
    const insert = (label: string, finished: 'done_at' | 'failed_at' | null, ageDays: number) =>
      h.dataSource.query(
        `INSERT INTO jobs (organization_id, environment, type, authorization_id, run_at, max_attempts, payload,
           created_at, done_at, failed_at)
         VALUES ($1, 'sandbox', 'purge_test', $2, now() - ($3 || ' days')::interval, 10, '{}',
           now() - ($3 || ' days')::interval, $4::timestamptz, $5::timestamptz)`,
        [
          h.organizationId,
          label,
          String(ageDays),
          finished === 'done_at' ? new Date(Date.now() - ageDays * 86_400_000) : null,
          finished === 'failed_at' ? new Date(Date.now() - ageDays * 86_400_000) : null,
        ],
      );
    await insert('completed_8_days_ago', 'done_at', 8);
    await insert('completed_yesterday', 'done_at', 1);
    await insert('given_up_8_days_ago', 'failed_at', 8);
    await insert('given_up_31_days_ago', 'failed_at', 31);
    await insert('unfinished', null, 40);

    await h.startWorker({ portal: spy, purgeIntervalMs: 50 });
    const deadline = Date.now() + 5_000;
    let left: string[] = [];
    do {
      await sleep(25);
      left = (await h.jobs()).map((j) => j.authorization_id).sort();
    } while (left.length > 3 && Date.now() < deadline);
    expect(left).toEqual(['completed_yesterday', 'given_up_8_days_ago', 'unfinished']);
  });
});
