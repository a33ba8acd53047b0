import { PayerPortalError } from '@prior-auth/domain';
import {
  GIVEN_UP_JOBS_QUEUE,
  JOB_QUEUE_SETTINGS,
  JOB_TABLE,
  PostgresCustomerPortalSessions,
  PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE,
  PURGE_IDEMPOTENCY_QUEUE,
} from '@prior-auth/persistence-postgres';
import { CredentialsCipher, parseCredentialsKeys } from '@prior-auth/platform';
import { randomBytes } from 'node:crypto';
import { Harness } from './support/harness';
import { PayerWebsite } from './support/payer-website';
import { FlakyPayerPortal, Gate, SlowPayerPortal, SpyPayerPortal } from './support/portals';

/*
 * Wake-ups, retries, production without a portal, malformed jobs, heartbeats, shutdown and scheduled
 * maintenance on PostgreSQL, with the worker on pg-boss (decision 0016) and the sandbox portal a real browser
 * on the simulated payer website (decision 0022).
 */

let h: Harness;
let spy: SpyPayerPortal;
let website: PayerWebsite;

beforeAll(async () => {
  website = await PayerWebsite.start();
}, 60_000);
afterAll(() => website?.close());
beforeEach(async () => {
  h = await Harness.open();
  spy = new SpyPayerPortal(website.portal());
});
afterEach(() => h.close());

const PAYER_REFERENCE = /^PSX-[0-9A-F]{10}$/;

const IDLE = 60_000; // a poll interval no test waits for

/** Polls `read` until `done` holds for its value. */
async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const setRetryLimit = (authorizationId: string, retryLimit: number) =>
  h.dataSource.query(`UPDATE ${JOB_TABLE} SET retry_limit = $2 WHERE data->>'authorizationId' = $1`, [
    authorizationId,
    retryLimit,
  ]);

describe('wake-ups', () => {
  it('a confirm wakes an idle worker at once: the enqueue NOTIFYs at commit, no poll needed', async () => {
    await h.startWorker({
      portal: spy,
      pollIntervalMs: IDLE,
      pipelineSettings: { sandbox: { decisionPollIntervalMs: 0 } },
    });
    const ready = await h.readyCase('SBX-APPROVED');
    let firstPortalCall: number | null = null;
    spy.before = async () => {
      firstPortalCall ??= Date.now();
    };
    const confirmed = Date.now();
    await h.confirm(ready.id);
    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    // The job was taken at once (its first portal call), not after a poll interval; the browser runs after
    // that take what they take. A loaded machine can take seconds to reach the call: a third of the interval
    // still tells the two apart.
    expect(firstPortalCall! - confirmed).toBeLessThan(IDLE / 3);
  });
});

describe('failures', () => {
  it('retries transient portal errors with backoff; the payer still gets one submission', async () => {
    const flaky = new SpyPayerPortal(
      new FlakyPayerPortal(website.portal(), ['discover', 'submit', 'pollDecision']),
    );
    const { settled } = await h.startWorker({ portal: flaky });
    const ready = await h.readyCase('SBX-APPROVED');
    await h.confirm(ready.id);

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    expect(flaky.callsTo('submit', ready.id).map((c) => c.result)).toEqual(['error', 'ok']);
    expect(flaky.submissions(ready.id)).toHaveLength(1);
    // The retry after the boundary asked the payer first (nothing there), then submitted with the same key.
    expect(flaky.callsTo('findSubmission', ready.id)).toHaveLength(1);
    expect(done.submission.payerReceipt?.referenceNumber).toMatch(PAYER_REFERENCE);
    expect(
      await PayerWebsite.submissionCount(h.dataSource, flaky.submissions(ready.id)[0]!.idempotencyKey!),
    ).toBe(1);

    const jobs = await h.settledJobs(ready.id);
    // The receipt's transaction creates the poll and the due-date check together: their order is not defined.
    expect(jobs.map((j) => [j.type, j.attempts, j.state]).sort()).toEqual(
      [
        ['process', 3, 'completed'],
        ['poll_decision', 2, 'completed'],
        // Waits for the decision's due date (docs/decisions/0031-events-and-webhooks.md).
        ['decision_overdue', 0, 'created'],
      ].sort(),
    );
    const failures = settled.filter((s) => s.settlement.status === 'failed').map((s) => s.settlement);
    expect(failures).toHaveLength(3);
    for (const failure of failures) {
      expect(failure).toMatchObject({
        permanent: false,
        error: expect.stringMatching(/^payer_portal_timeout:/),
      });
    }
  });

  it('production has no payer portal: its cases fail with payer_portal_unavailable, never reaching the sandbox', async () => {
    const production = await h.inEnvironment('production');
    try {
      // Serviceable at create (decision 0021), but this worker binds no production portal.
      await production.connectPayerPortal(
        'payer_uhc',
        { baseUrl: 'https://portal.payer.example', pageScript: 'sandbox-payer-site' },
        { username: 'clinic.user', password: 'not-a-real-password', totpSecret: null },
      );
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
    await setRetryLimit(ready.id, 1);
    await h.startWorker({ portal: spy });

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('failed');
    expect(done.failure).toMatchObject({ code: 'processing_retries_exhausted' });
    expect(spy.submissions(ready.id)).toEqual([]);
    const [process] = await h.jobs(ready.id);
    expect(process).toMatchObject({ attempts: 2, state: 'failed' });
    expect(process!.output?.error).toMatch(/^payer_portal_timeout:/);
    expect(await h.settledGivenUp(ready.id)).toMatchObject([
      { source_name: 'process', state: 'completed', output: { consequence: 'case_failed' } },
    ]);
  });

  it('a case whose submission may have reached the payer is reconciled when its process job gives up, never failed', async () => {
    const flaky = new SpyPayerPortal(new FlakyPayerPortal(website.portal(), ['submit']));
    const ready = await h.readyCase('SBX-APPROVED');
    await h.confirm(ready.id);
    // A single attempt: the failed submit is the process job's last.
    await setRetryLimit(ready.id, 0);
    const { settled } = await h.startWorker({ portal: flaky });

    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    const keys = flaky.callsTo('submit', ready.id).map((c) => c.idempotencyKey);
    expect(flaky.callsTo('submit', ready.id).map((c) => c.result)).toEqual(['error', 'ok']);
    expect(new Set(keys).size).toBe(1);
    expect(flaky.callsTo('findSubmission', ready.id)).toHaveLength(1); // asked before submitting again
    const jobs = await h.settledJobs(ready.id);
    const types = jobs.map((j) => j.type);
    expect(types.slice(0, 2)).toEqual(['process', 'reconcile']);
    // The poll and the due-date job (docs/decisions/0031-events-and-webhooks.md) come with the receipt.
    expect(types.slice(2).sort()).toEqual(['decision_overdue', 'poll_decision']);
    expect(jobs[0]).toMatchObject({ state: 'failed' });
    expect(
      settled.find((s) => s.job.type === 'process' && s.settlement.status === 'gave_up')?.settlement,
    ).toEqual({ status: 'gave_up', consequence: 'reconcile_scheduled' });
  });

  it('gives up a job that can never run (a malformed payload) without retrying it', async () => {
    const { settled } = await h.startWorker({ portal: spy });
    await h.boss.send('reconcile_handoff', {
      type: 'reconcile_handoff',
      authorizationId: 'auth_missing',
      organizationId: h.organizationId,
      environment: 'sandbox',
      payload: {},
    });
    await eventually(
      async () => settled.filter((s) => s.job.authorizationId === 'auth_missing'),
      (found) => found.some((s) => s.settlement.status === 'gave_up'),
      'the malformed job given up',
    );
    const [job] = await h.jobs('auth_missing');
    expect(job).toMatchObject({ attempts: 1, state: 'failed' });
    expect(job!.output).toMatchObject({
      permanent: true,
      error: expect.stringMatching(/^invalid_job_payload:/),
    });
    expect(settled.filter((s) => s.job.authorizationId === 'auth_missing').map((s) => s.settlement)).toEqual([
      { status: 'failed', permanent: true, error: expect.stringMatching(/^invalid_job_payload:/) },
      { status: 'gave_up', consequence: 'none' },
    ]);
  });
});

describe('heartbeats', () => {
  it('a step that outlives its heartbeat interval is not run twice: its worker keeps the claim alive', async () => {
    const heartbeatMs = JOB_QUEUE_SETTINGS.process.heartbeatSeconds * 1_000;
    // Without heartbeats the other worker would take the job over and submit again.
    const slow = new SpyPayerPortal(new SlowPayerPortal(website.portal(), { submit: heartbeatMs + 3_000 }));
    const workers = [await h.startWorker({ portal: slow }), await h.startWorker({ portal: slow })];
    const ready = await h.readyCase('SBX-APPROVED');
    await h.confirm(ready.id);

    const done = await h.waitForStatus(ready.id, 'completed', heartbeatMs + 60_000);
    expect(done.outcome).toBe('approved');
    expect(slow.callsTo('submit', ready.id)).toHaveLength(1);
    expect(slow.callsTo('findSubmission', ready.id)).toEqual([]); // no second run asking the payer first
    const [process] = await h.settledJobs(ready.id);
    expect(process).toMatchObject({ type: 'process', attempts: 1, state: 'completed' });
    const settlements = workers.flatMap((w) => w.settled).filter((s) => s.job.id === process!.id);
    expect(settlements.map((s) => s.settlement)).toEqual([
      { status: 'completed', outcome: 'receipt_recorded' },
    ]);
  }, 150_000);
});

describe('shutdown', () => {
  it('releases a step that outlives the grace period without using up its attempt; another worker finishes it with the same submission key', async () => {
    const ready = await h.readyCase('SBX-APPROVED');
    await h.confirm(ready.id);
    // The final attempt: a release that counted it would leave the job to fail.
    await setRetryLimit(ready.id, 0);
    const gate = new Gate();
    let holding = true;
    spy.before = async (method, portalCase) => {
      if (holding && method === 'submit' && portalCase.authorizationId === ready.id) await gate.wait();
    };
    const stopping = await h.startWorker({ portal: spy });
    await gate.arrived();

    await Harness.stopWorker(stopping, 50);
    const [released] = await h.jobs(ready.id);
    expect(released).toMatchObject({ type: 'process', attempts: 1, max_attempts: 2, state: 'retry' });
    expect(released!.output?.error).toMatch(/^worker_shutdown/);
    expect(new Date(released!.start_after).getTime()).toBeLessThanOrEqual(Date.now());
    expect(stopping.logger.messages('warn')).toContain('job released at shutdown');

    holding = false;
    await h.startWorker({ portal: spy });
    const done = await h.waitForStatus(ready.id, 'completed');
    expect(done.outcome).toBe('approved');
    gate.open(); // the stopped worker's step ends late and finds the case moved on
    await eventually(
      async () => spy.callsTo('submit', ready.id),
      (calls) => calls.length === 2,
      'the late submit',
    );

    const keys = spy.callsTo('submit', ready.id).map((c) => c.idempotencyKey);
    expect(new Set(keys).size).toBe(1); // a repeat under the same key is the same submission at the payer
    expect(await PayerWebsite.submissionCount(h.dataSource, keys[0]!)).toBe(1);
    const [process] = await h.settledJobs(ready.id);
    expect(process).toMatchObject({ attempts: 2, max_attempts: 2, state: 'completed' });
    const events = await h.eventTypes(ready.id);
    expect(events.filter((e) => e === 'authorization.receipt_recorded')).toHaveLength(1);
    expect((await h.get(ready.id)).status).toBe('completed');
  });
  it('a step that ends within the grace period has its job settled by pg-boss before the worker says it stopped', async () => {
    const ready = await h.readyCase('SBX-PENDING');
    await h.confirm(ready.id);
    const gate = new Gate();
    spy.before = async (method, portalCase) => {
      if (method === 'submit' && portalCase.authorizationId === ready.id) await gate.wait();
    };
    const stopping = await h.startWorker({ portal: spy });
    await gate.arrived();
    const [running] = await h.jobs(ready.id);

    // The job's row held, so pg-boss's settlement of the finished step waits where the test can see it.
    const holder = h.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query(`SELECT 1 FROM ${JOB_TABLE} WHERE name = $1 AND id = $2 FOR UPDATE`, [
      running!.type,
      running!.id,
    ]);
    const [{ pid }] = (await holder.query('SELECT pg_backend_pid() AS pid')) as [{ pid: number }];
    let stopReturned = false;
    const stopped = stopping.worker.stop({ graceMs: 60_000 }).then(() => {
      stopReturned = true;
    });
    gate.open();
    await h.waitForStatus(ready.id, 'waiting_on_payer');
    await eventually(
      () => h.dataSource.query('SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]),
      (blocked: unknown[]) => blocked.length > 0,
      'the settlement waiting on the held row',
    );
    // The step has returned, its settlement has not landed: the worker is not done stopping.
    expect(stopReturned).toBe(false);
    await holder.commitTransaction();
    await holder.release();
    await stopped;
    // What the worker's main does next; it finds nothing of this job left to fail.
    await stopping.boss.stop({ graceful: false });

    const [process] = await h.jobs(ready.id);
    expect(process).toMatchObject({ type: 'process', attempts: 1, state: 'completed' });
    expect(stopping.settled.map((s) => s.settlement)).toEqual([
      { status: 'completed', outcome: 'receipt_recorded' },
    ]);
    expect(stopping.logger.messages('warn')).not.toContain('job released at shutdown');
  });
});

describe('maintenance', () => {
  it('schedules the idempotency purge once for the cluster, and a run purges expired records only', async () => {
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

    const [first] = [
      await h.startWorker({ portal: spy, purge: true }),
      await h.startWorker({ portal: spy, purge: true }),
    ];
    expect(await first!.boss.getSchedules(PURGE_IDEMPOTENCY_QUEUE)).toHaveLength(1);
    // What the schedule sends every ten minutes, sent now.
    await h.boss.send(PURGE_IDEMPOTENCY_QUEUE, {});
    const keys = await eventually(
      async () =>
        (
          (await h.dataSource.query(
            'SELECT key FROM idempotency_records WHERE organization_id = $1 ORDER BY key',
            [h.organizationId],
          )) as Array<{ key: string }>
        ).map((r) => r.key),
      (found) => !found.includes('expired-key'),
      'the expired record purged',
    );
    expect(keys).toEqual(['live-key']);
  });

  it("purges customers' portal sessions on a schedule: expired ones and those of cases done with the payer", async () => {
    const keys = parseCredentialsKeys(randomBytes(32).toString('base64'));
    if (typeof keys === 'string') throw new Error(keys);
    const sessions = new PostgresCustomerPortalSessions(h.dataSource, new CredentialsCipher(keys));
    const [live, expired, canceled] = [
      await h.readyCase('M-CPS-LIVE'),
      await h.readyCase('M-CPS-EXPIRED'),
      await h.readyCase('M-CPS-CANCELED'),
    ];
    await h.cancel(canceled!.id);
    const hourAhead = new Date(Date.now() + 60 * 60_000);
    const keyOf = (id: string) => ({ ...h.scope, authorizationId: id });
    await sessions.keep(keyOf(live!.id), '{"cookies":[]}', hourAhead);
    await sessions.keep(keyOf(expired!.id), '{"cookies":[]}', new Date(Date.now() - 1));
    await sessions.keep(keyOf(canceled!.id), '{"cookies":[]}', hourAhead);

    const worker = await h.startWorker({ portal: spy, purge: true, customerSessions: sessions });
    expect(await worker.boss.getSchedules(PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE)).toHaveLength(1);
    // What the schedule sends every ten minutes, sent now.
    await h.boss.send(PURGE_CUSTOMER_PORTAL_SESSIONS_QUEUE, {});
    const kept = await eventually(
      async () =>
        (
          (await h.dataSource.query(
            `SELECT authorization_id FROM customer_portal_sessions
              WHERE organization_id = $1 AND environment = $2`,
            [h.scope.organizationId, h.scope.environment],
          )) as Array<{ authorization_id: string }>
        ).map((r) => r.authorization_id),
      (found) => found.length < 3,
      'the expired and the canceled case sessions purged',
    );
    expect(kept).toEqual([live!.id]);
  });

  it('pg-boss deletes finished jobs after their retention: completed after 7 days, given up after 30', async () => {
    for (const type of Object.keys(JOB_QUEUE_SETTINGS)) {
      expect(await h.boss.getQueue(type)).toMatchObject({
        deleteAfterSeconds: 7 * 86_400,
        deadLetter: GIVEN_UP_JOBS_QUEUE,
      });
    }
    expect(await h.boss.getQueue(GIVEN_UP_JOBS_QUEUE)).toMatchObject({ deleteAfterSeconds: 30 * 86_400 });
  });
});
