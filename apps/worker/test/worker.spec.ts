import { PayerPortalError } from '@prior-auth/domain';
import { type ClaimedJob, type ClaimJobsRequest } from '@prior-auth/persistence-postgres';
import { type GiveUpHandlers, type JobHandler, type JobResult } from '../src/job-handlers';
import { PermanentJobError, retryDelayMs } from '../src/retry-policy';
import { type JobWakeups, type SettledJob, Worker, type WorkerJobStore } from '../src/worker';
import { MemoryLogger } from './support/fakes';
import { Gate } from './support/portals';

/* The worker loop against an in-memory job store: claiming, settling, backoff, wake-ups, shutdown. */

const NOW = new Date('2026-03-02T09:00:00.000Z');

let nextId = 1;
const job = (overrides: Partial<ClaimedJob> = {}): ClaimedJob => ({
  id: String(nextId++),
  type: 'process',
  authorizationId: `auth_${nextId}`,
  scope: { organizationId: 'org_1', environment: 'sandbox' },
  payload: {},
  attempts: 0,
  maxAttempts: 10,
  runAt: NOW,
  lockedUntil: NOW,
  stranded: false,
  ...overrides,
});

class FakeJobStore implements WorkerJobStore {
  readonly queue: ClaimedJob[] = [];
  readonly claims: ClaimJobsRequest[] = [];
  readonly completed: string[] = [];
  readonly retried: Array<{ jobId: string; error: string; retryAt: Date }> = [];
  readonly gaveUp: Array<{ jobId: string; error: string }> = [];
  readonly extended: string[] = [];
  readonly released: Array<{ jobId: string; now: Date }> = [];
  /** Job ids whose lease another worker has taken. */
  readonly lost = new Set<string>();
  /** Give-ups and their consequences, as committed (a failed transaction leaves nothing). */
  readonly committed: string[] = [];
  private pending: string[] | null = null;
  failClaims = 0;

  async claim(request: ClaimJobsRequest): Promise<ClaimedJob[]> {
    this.claims.push(request);
    if (this.failClaims > 0) {
      this.failClaims -= 1;
      throw new Error('connection refused');
    }
    return this.queue.splice(0, request.limit).map((j) => ({
      ...j,
      attempts: j.attempts + 1,
      lockedUntil: new Date(request.now.getTime() + request.leaseMs),
    }));
  }
  async complete(jobId: string): Promise<boolean> {
    this.completed.push(jobId);
    return true;
  }
  async retryOrGiveUp(
    jobId: string,
    _workerId: string,
    failure: { error: string; retryAt: Date },
  ): Promise<'retry_scheduled' | 'gave_up' | 'lease_lost'> {
    this.retried.push({ jobId, error: failure.error, retryAt: failure.retryAt });
    return 'retry_scheduled';
  }
  async giveUp(jobId: string, _workerId: string, failure: { error: string }): Promise<boolean> {
    this.gaveUp.push({ jobId, error: failure.error });
    this.record(`gave up ${jobId}`);
    return true;
  }
  async extendLease(jobId: string): Promise<boolean> {
    this.extended.push(jobId);
    return !this.lost.has(jobId);
  }
  async release(jobId: string, _workerId: string, now: Date): Promise<boolean> {
    this.released.push({ jobId, now });
    return true;
  }
  async withinTransaction<T>(work: () => Promise<T>): Promise<T> {
    this.pending = [];
    try {
      const result = await work();
      this.committed.push(...this.pending);
      return result;
    } finally {
      this.pending = null;
    }
  }
  record(entry: string): void {
    if (this.pending === null) this.committed.push(entry);
    else this.pending.push(entry);
  }
}

const ok = (outcome = 'receipt_recorded'): JobResult => ({ outcome, enqueuedDueWork: false });

function start(
  store: FakeJobStore,
  handler: JobHandler,
  options: {
    concurrency?: number;
    pollIntervalMs?: number;
    leaseMs?: number;
    wakeups?: JobWakeups;
    giveUpHandlers?: GiveUpHandlers;
  } = {},
) {
  const settled: SettledJob[] = [];
  const logger = new MemoryLogger();
  const worker = new Worker({
    jobStore: store,
    handlers: { process: handler, poll_decision: handler },
    giveUpHandlers: options.giveUpHandlers,
    logger,
    concurrency: options.concurrency ?? 2,
    leaseMs: options.leaseMs ?? 60_000,
    pollIntervalMs: options.pollIntervalMs ?? 10,
    workerId: 'worker-test',
    retry: { baseDelayMs: 1_000, maxDelayMs: 8_000, jitter: false },
    clock: { now: () => NOW },
    wakeups: options.wakeups,
    onJobSettled: (s) => settled.push(s),
  });
  return { worker, settled, logger };
}

async function until(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('retryDelayMs', () => {
  it('doubles from the base delay up to the maximum', () => {
    const policy = { baseDelayMs: 1_000, maxDelayMs: 8_000, jitter: false };
    expect([1, 2, 3, 4, 5, 50].map((attempt) => retryDelayMs(policy, attempt))).toEqual([
      1_000, 2_000, 4_000, 8_000, 8_000, 8_000,
    ]);
  });

  it('with jitter, spreads over the upper half of the delay', () => {
    const policy = { baseDelayMs: 1_000, maxDelayMs: 60_000, jitter: true };
    expect(retryDelayMs(policy, 3, () => 0)).toBe(2_000);
    expect(retryDelayMs(policy, 3, () => 1)).toBe(4_000);
  });
});

describe('Worker', () => {
  it('claims only the job types it has handlers for, with its lease', async () => {
    const store = new FakeJobStore();
    const { worker } = start(store, async () => ok());
    await worker.start();
    await until(() => store.claims.length > 0);
    await worker.stop();
    expect(store.claims[0]).toEqual({
      workerId: 'worker-test',
      now: NOW,
      leaseMs: 60_000,
      limit: 2,
      types: ['process', 'poll_decision'],
    });
  });

  it('runs at most `concurrency` jobs at once and claims only for free slots', async () => {
    const store = new FakeJobStore();
    store.queue.push(...Array.from({ length: 7 }, () => job()));
    const gate = new Gate();
    let running = 0;
    let maxRunning = 0;
    const { worker, settled } = start(
      store,
      async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await gate.wait();
        running -= 1;
        return ok();
      },
      { concurrency: 3 },
    );
    await worker.start();
    await gate.arrived(3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(worker.activeJobs).toBe(3);
    expect(store.claims.every((claim) => claim.limit >= 1 && claim.limit <= 3)).toBe(true);
    gate.open();
    await until(() => settled.length === 7);
    await worker.stop();
    expect(maxRunning).toBe(3);
    expect(store.completed).toHaveLength(7);
  });

  it('retries a failed job with exponential backoff on its attempt number', async () => {
    const store = new FakeJobStore();
    store.queue.push(job({ attempts: 0 }), job({ attempts: 2 }));
    const { worker, settled } = start(store, async () => {
      throw new PayerPortalError('payer_portal_timeout', 'The payer portal timed out.', { transient: true });
    });
    await worker.start();
    await until(() => settled.length === 2);
    await worker.stop();
    expect(store.retried).toEqual([
      {
        jobId: expect.any(String),
        error: 'payer_portal_timeout: The payer portal timed out.',
        retryAt: new Date(NOW.getTime() + 1_000),
      },
      {
        jobId: expect.any(String),
        error: 'payer_portal_timeout: The payer portal timed out.',
        retryAt: new Date(NOW.getTime() + 4_000),
      },
    ]);
    expect(store.gaveUp).toEqual([]);
  });

  it('gives up at once on permanent failures: a payer refusal, a bad payload, an unknown type', async () => {
    const store = new FakeJobStore();
    store.queue.push(job(), job(), job({ type: 'mystery' }));
    let call = 0;
    const { worker, settled } = start(store, async () => {
      call += 1;
      if (call === 1) {
        throw new PayerPortalError('payer_portal_unavailable', 'No payer portal.', { transient: false });
      }
      throw new PermanentJobError('invalid_job_payload', 'No manualHandoffId.');
    });
    await worker.start();
    await until(() => settled.length === 3);
    await worker.stop();
    expect(store.gaveUp.map((g) => g.error).sort()).toEqual([
      'invalid_job_payload: No manualHandoffId.',
      'payer_portal_unavailable: No payer portal.',
      'unknown_job_type: No handler for job type "mystery".',
    ]);
    expect(store.retried).toEqual([]);
  });

  it('never runs a job twice at once when its own step outlived the lease and it claimed it again', async () => {
    const store = new FakeJobStore();
    const slow = job();
    store.queue.push(slow);
    const gate = new Gate();
    const { worker, settled, logger } = start(store, async () => {
      await gate.wait();
      return ok();
    });
    await worker.start();
    await gate.arrived();
    store.queue.push(slow); // the lease ran out: the store hands the same job out again
    await until(() =>
      logger.messages('warn').includes('job ran longer than its lease and was claimed again'),
    );
    gate.open();
    await until(() => settled.length === 1);
    await worker.stop();
    expect(gate.arrivals).toBe(1);
    expect(store.completed).toEqual([slow.id]);
  });

  it('keeps claiming after the database refused a claim', async () => {
    const store = new FakeJobStore();
    store.failClaims = 2;
    store.queue.push(job());
    const { worker, settled, logger } = start(store, async () => ok(), { pollIntervalMs: 5 });
    await worker.start();
    await until(() => settled.length === 1);
    await worker.stop();
    expect(logger.messages('warn')).toEqual(['claiming jobs failed', 'claiming jobs failed']);
  });

  it('wakes at once on a notification instead of waiting for the next poll', async () => {
    const store = new FakeJobStore();
    let wake: () => void = () => undefined;
    const wakeups: JobWakeups = {
      start: async (onWake) => {
        wake = onWake;
      },
      notify: async () => undefined,
      stop: async () => undefined,
    };
    const { worker, settled } = start(store, async () => ok(), { pollIntervalMs: 60_000, wakeups });
    await worker.start();
    await until(() => store.claims.length === 1);
    store.queue.push(job());
    const woken = Date.now();
    wake();
    await until(() => settled.length === 1);
    expect(Date.now() - woken).toBeLessThan(1_000);
    await worker.stop();
  });

  it('notifies the other workers when a step enqueued work that is already due', async () => {
    const store = new FakeJobStore();
    store.queue.push(job(), job());
    let notified = 0;
    const wakeups: JobWakeups = {
      start: async () => undefined,
      notify: async () => {
        notified += 1;
      },
      stop: async () => undefined,
    };
    let call = 0;
    const { worker, settled } = start(
      store,
      async () => ({ outcome: 'confirmed', enqueuedDueWork: (call += 1) === 1 }),
      { wakeups },
    );
    await worker.start();
    await until(() => settled.length === 2);
    await worker.stop();
    expect(notified).toBe(1);
  });

  it('stop: lets a running step finish within the grace period and claims nothing more', async () => {
    const store = new FakeJobStore();
    store.queue.push(job());
    const gate = new Gate();
    const { worker, settled } = start(store, async () => {
      await gate.wait();
      return ok();
    });
    await worker.start();
    await gate.arrived();
    store.queue.push(job());
    const stopping = worker.stop({ graceMs: 5_000 });
    setTimeout(() => gate.open(), 30);
    await stopping;
    expect(settled.map((s) => s.settlement.status)).toEqual(['completed']);
    expect(store.queue).toHaveLength(1);
  });

  it('stop: releases every step that outlives the grace period, also on its last attempt, and stops renewing', async () => {
    const store = new FakeJobStore();
    const released = job({ attempts: 0 });
    const last = job({ attempts: 9, maxAttempts: 10 });
    store.queue.push(released, last);
    const gate = new Gate();
    const { worker, logger } = start(
      store,
      async () => {
        await gate.wait();
        return ok();
      },
      { leaseMs: 30 },
    );
    await worker.start();
    await gate.arrived(2);
    await worker.stop({ graceMs: 20 });
    expect(store.released.map((r) => r.jobId).sort()).toEqual([released.id, last.id].sort());
    expect(store.released.every((r) => r.now.getTime() === NOW.getTime())).toBe(true);
    expect(store.retried).toEqual([]);
    expect(logger.messages('warn').filter((m) => m === 'job released at shutdown')).toHaveLength(2);
    const renewals = store.extended.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(store.extended).toHaveLength(renewals); // the released jobs are no longer kept alive
    gate.open();
  });

  it('renews the lease of a running step until it ends', async () => {
    const store = new FakeJobStore();
    const slow = job();
    store.queue.push(slow);
    const gate = new Gate();
    const { worker, settled } = start(
      store,
      async () => {
        await gate.wait();
        return ok();
      },
      { leaseMs: 30 },
    );
    await worker.start();
    await gate.arrived();
    await until(() => store.extended.length >= 3); // every 10 ms, a third of the lease
    gate.open();
    await until(() => settled.length === 1);
    const renewals = store.extended.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    await worker.stop();
    expect(store.extended).toHaveLength(renewals);
    expect(new Set(store.extended)).toEqual(new Set([slow.id]));
  });

  it('logs a lost lease once and stops renewing it', async () => {
    const store = new FakeJobStore();
    const slow = job();
    store.queue.push(slow);
    store.lost.add(slow.id);
    const gate = new Gate();
    const { worker, logger } = start(
      store,
      async () => {
        await gate.wait();
        return ok();
      },
      { leaseMs: 30 },
    );
    await worker.start();
    await gate.arrived();
    await until(() => store.extended.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.extended).toHaveLength(1);
    expect(logger.messages('warn').filter((m) => m.startsWith('job lease lost while running'))).toHaveLength(
      1,
    );
    gate.open();
    await worker.stop();
  });

  it('runs the give-up consequence in the transaction that gives the job up', async () => {
    const store = new FakeJobStore();
    store.queue.push(job({ attempts: 9, maxAttempts: 10 }));
    store.retryOrGiveUp = async (jobId) => {
      store.record(`gave up ${jobId}`);
      return 'gave_up';
    };
    const { worker, settled } = start(
      store,
      async () => {
        throw new PayerPortalError('payer_portal_timeout', 'The payer portal timed out.', {
          transient: true,
        });
      },
      {
        giveUpHandlers: {
          process: async (j, giveUp) => {
            store.record(`${giveUp.reason} ${j.id} retry at +${giveUp.retryAt.getTime() - NOW.getTime()}`);
            return 'case_failed';
          },
        },
      },
    );
    await worker.start();
    await until(() => settled.length === 1);
    await worker.stop();
    const id = settled[0]!.job.id;
    expect(settled[0]!.settlement).toEqual({
      status: 'gave_up',
      error: 'payer_portal_timeout: The payer portal timed out.',
      consequence: 'case_failed',
    });
    expect(store.committed).toEqual([`gave up ${id}`, `attempts_exhausted ${id} retry at +8000`]);
  });

  it('records nothing when the give-up consequence fails, so the job comes back once its lease runs out', async () => {
    const store = new FakeJobStore();
    store.queue.push(job());
    const { worker, settled } = start(
      store,
      async () => {
        throw new PermanentJobError('invalid_job_payload', 'No manualHandoffId.');
      },
      {
        giveUpHandlers: {
          process: async () => {
            throw new Error('database unavailable');
          },
        },
      },
    );
    await worker.start();
    await until(() => settled.length === 1);
    await worker.stop();
    expect(settled[0]!.settlement).toEqual({
      status: 'unrecorded',
      error: 'invalid_job_payload: No manualHandoffId. (not recorded: Error: database unavailable)',
    });
    expect(store.committed).toEqual([]);
  });

  it('gives up a stranded job without running it, with the consequence for its case', async () => {
    const store = new FakeJobStore();
    const stranded = job({ attempts: 10, maxAttempts: 10 });
    store.queue.push(stranded);
    store.claim = async (request) =>
      store.queue.splice(0, request.limit).map((j) => ({ ...j, stranded: true }));
    let runs = 0;
    const { worker, settled } = start(
      store,
      async () => {
        runs += 1;
        return ok();
      },
      {
        giveUpHandlers: {
          process: async (j, giveUp) => {
            store.record(`${giveUp.reason} ${j.id}`);
            return 'reconcile_scheduled';
          },
        },
      },
    );
    await worker.start();
    await until(() => settled.length === 1);
    await worker.stop();
    expect(runs).toBe(0);
    expect(settled[0]!.settlement).toEqual({
      status: 'gave_up',
      error: expect.stringMatching(/^lease_expired_on_final_attempt: /),
      consequence: 'reconcile_scheduled',
    });
    expect(store.committed).toEqual([
      `gave up ${stranded.id}`,
      `lease_expired_on_final_attempt ${stranded.id}`,
    ]);
  });

  it('runs periodic tasks from the start and logs their failures', async () => {
    const store = new FakeJobStore();
    let runs = 0;
    const logger = new MemoryLogger();
    const worker = new Worker({
      jobStore: store,
      handlers: {},
      logger,
      concurrency: 1,
      leaseMs: 1_000,
      pollIntervalMs: 10,
      periodicTasks: [
        {
          name: 'purge',
          intervalMs: 10,
          run: async () => {
            runs += 1;
            if (runs === 2) throw new Error('database unavailable');
            return runs;
          },
        },
      ],
    });
    await worker.start();
    await until(() => runs >= 3);
    await worker.stop();
    const after = runs;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(runs).toBe(after);
    expect(logger.messages('warn')).toContain('periodic task failed');
  });
});
