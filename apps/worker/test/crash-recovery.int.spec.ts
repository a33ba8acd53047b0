import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SandboxPayerPortal, sandboxReferenceNumber } from '@prior-auth/payer-portal';
import { Harness, TEST_SIGNING_SECRET } from './support/harness';
import { SpyPayerPortal } from './support/portals';

/*
 * A real worker process (src/main.ts, run with tsx so it is never a stale build) is killed with SIGKILL while
 * it is submitting: the final boundary is committed, the payer call is in flight, nothing else happened. Once
 * its lease runs out another worker takes the job over, asks the payer, submits under the same key and
 * finishes the case with one receipt.
 */

const WORKER_MAIN = join(__dirname, '..', 'src', 'main.ts');
// Four portal calls of PORTAL_LATENCY_MS each must fit in the lease, or the job would be claimed again.
const LEASE_MS = 4_000;
const PORTAL_LATENCY_MS = 400;

let h: Harness;
let child: ChildProcess | null = null;

beforeEach(async () => {
  h = await Harness.open();
});
afterEach(async () => {
  if (child !== null && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = null;
  await h.close();
});

function startWorkerProcess(): Promise<{ process: ChildProcess; output: string[] }> {
  const output: string[] = [];
  const worker = spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
    cwd: join(__dirname, '..'),
    env: {
      ...process.env,
      DATABASE_URL: process.env.DATABASE_URL,
      PRIOR_AUTH_DATA_DIR: mkdtempSync(join(tmpdir(), 'worker-crash-')),
      SIGNING_SECRET: TEST_SIGNING_SECRET,
      LOG_LEVEL: 'info',
      WORKER_CONCURRENCY: '2',
      WORKER_LEASE_MS: String(LEASE_MS),
      WORKER_POLL_INTERVAL_MS: '50',
      SANDBOX_DECISION_DELAY_SECONDS: '0',
      SANDBOX_PORTAL_LATENCY_MS: String(PORTAL_LATENCY_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = worker;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output.join('\n')}`)), 30_000);
    for (const stream of [worker.stdout!, worker.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        output.push(line);
        if (line.includes('"worker ready"')) {
          clearTimeout(timer);
          resolve({ process: worker, output });
        }
      });
    }
    worker.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output.join('\n')}`));
    });
  });
}

it('SIGTERM finishes the running step, then exits cleanly', async () => {
  const { process: worker, output } = await startWorkerProcess();
  const ready = await h.readyCase('SBX-PENDING');
  await h.confirm(ready.id);
  await h.waitFor(ready.id, (a) => a.finalBoundaryCrossedAt !== null, 'past the boundary', 20_000);

  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  worker.kill('SIGTERM');
  expect(await exited).toBe(0);
  // The submission in flight was finished and recorded, not abandoned.
  const stored = await h.get(ready.id);
  expect(stored.status).toBe('waiting_on_payer');
  const [process] = await h.jobs(ready.id);
  expect(process).toMatchObject({ type: 'process', attempts: 1, locked_by: null });
  expect(process!.done_at).not.toBeNull();
  expect(output.some((line) => line.includes('"worker stopped"'))).toBe(true);
}, 60_000);

it('a worker killed mid-submission is replaced: the case completes with one submission', async () => {
  const { process: worker, output } = await startWorkerProcess();
  const ready = await h.readyCase('SBX-APPROVED');
  await h.confirm(ready.id);

  // The boundary crossing is committed right before the submit call, which takes PORTAL_LATENCY_MS.
  const crossed = await h.waitFor(
    ready.id,
    (a) => a.finalBoundaryCrossedAt !== null,
    'past the boundary',
    20_000,
  );
  const exited = new Promise((resolve) => worker.once('exit', (_code, signal) => resolve(signal)));
  worker.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');

  const orphaned = await h.get(ready.id);
  expect(orphaned.status).toBe('processing');
  expect(orphaned.submission.payerReceipt).toBeNull();
  const [leased] = await h.jobs(ready.id);
  expect(leased).toMatchObject({ type: 'process', attempts: 1, done_at: null });
  expect(leased!.locked_by).toMatch(/^worker-/);

  const spy = new SpyPayerPortal(new SandboxPayerPortal({ decisionDelayMs: 0 }));
  const survivor = await h.startWorker({ portal: spy, pollIntervalMs: 100 });
  const done = await h.waitForStatus(ready.id, 'completed', 15_000);

  expect(done.outcome).toBe('approved');
  const key = `${ready.id}:${crossed.finalBoundaryCrossedAt!.getTime().toString(36)}`;
  expect(spy.callsTo('findSubmission', ready.id).map((c) => c.idempotencyKey)).toEqual([key]);
  expect(spy.callsTo('submit', ready.id).map((c) => c.idempotencyKey)).toEqual([key]);
  expect(done.submission.payerReceipt?.referenceNumber).toBe(sandboxReferenceNumber(key));
  const events = await h.eventTypes(ready.id);
  expect(events.filter((e) => e === 'authorization.final_boundary_crossed')).toHaveLength(1);
  expect(events.filter((e) => e === 'authorization.receipt_recorded')).toHaveLength(1);

  const [process] = await h.jobs(ready.id);
  expect(process).toMatchObject({ type: 'process', attempts: 2, locked_by: null });
  expect(process!.done_at).not.toBeNull();
  expect(survivor.settled.find((s) => s.job.id === process!.id)?.settlement).toMatchObject({
    status: 'completed',
    outcome: 'receipt_recorded',
  });
  // The killed worker got as far as the portal and no further.
  expect(output.some((line) => line.includes('"job completed"') && line.includes(ready.id))).toBe(false);
}, 60_000);
