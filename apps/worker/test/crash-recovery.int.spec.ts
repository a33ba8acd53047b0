import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileBlobKey } from '@prior-auth/domain';
import { JOB_TABLE } from '@prior-auth/persistence-postgres';
import { Harness, TEST_SIGNING_SECRET } from './support/harness';
import { PayerWebsite, PDF_DOCUMENT } from './support/payer-website';
import { SpyPayerPortal } from './support/portals';

/*
 * A real worker process (src/main.ts, run with tsx so it is never a stale build) is killed with SIGKILL while
 * it is submitting: the final boundary is committed, the payer call is in flight, nothing else happened. Once
 * its heartbeat lapses pg-boss fails the attempt, and another worker takes the job over, asks the payer,
 * submits under the same key and finishes the case with one receipt. Killed on the job's final attempt, the
 * job goes to the given-up queue: the other worker resolves the case instead of leaving it processing.
 * Stopped with SIGTERM, it hands back what the grace period did not let it finish. Every worker, the process
 * and the in-process survivors, submits through a browser to the simulated payer website (decision 0022),
 * which counts what it received.
 */

const WORKER_MAIN = join(__dirname, '..', 'src', 'main.ts');
// A killed worker's job comes back once its heartbeat (10 s, decision 0016) lapsed, plus a retry delay, and
// the survivor's portal runs go through the browser.
const RECOVERY_MS = 90_000;
const PAYER_REFERENCE = /^PSX-[0-9A-F]{10}$/;

let h: Harness;
let website: PayerWebsite;
let dataDir: string;
let child: ChildProcess | null = null;

beforeAll(async () => {
  website = await PayerWebsite.start();
}, 60_000);
afterAll(() => website?.close());
beforeEach(async () => {
  h = await Harness.open();
  dataDir = mkdtempSync(join(tmpdir(), 'worker-crash-'));
});
afterEach(async () => {
  if (child !== null && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = null;
  await h.close();
});

const submissionsAtPayer = (key: string) => PayerWebsite.submissionCount(h.dataSource, key);

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A recovered receipt links a PNG of the payer's page, stored as the case's evidence (decision 0020). */
async function expectConfirmationImage(receipt: { details: Record<string, unknown> } | null): Promise<void> {
  const fileId = receipt?.details.confirmationFileId;
  expect(fileId).toEqual(expect.stringMatching(/^file_/));
  const file = await h.file(fileId as string);
  const { checksumSha256, purpose, status, contentType } = file.toState();
  expect({ purpose, status, contentType }).toEqual({
    purpose: 'payer_evidence',
    status: 'ready',
    contentType: 'image/png',
  });
  const bytes = await h.blobBytes(fileBlobKey(file.storageKey, { checksumSha256: checksumSha256! }));
  expect(Buffer.from(bytes).subarray(0, PNG_MAGIC.length)).toEqual(PNG_MAGIC);
}

/**
 * A case ready to confirm whose documents are in the worker process's file storage, where the API would have
 * stored them: the process uploads them to the website.
 */
async function readyCase(memberId: string) {
  const ready = await h.readyCase(memberId);
  const files: Array<{ storage_key: string; checksum_sha256: string }> = await h.dataSource.query(
    `SELECT storage_key, checksum_sha256 FROM files WHERE organization_id = $1 AND status = 'ready'`,
    [h.organizationId],
  );
  for (const file of files) {
    const key = fileBlobKey(file.storage_key, { checksumSha256: file.checksum_sha256 });
    const path = join(dataDir, 'blobs', ...key.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, PDF_DOCUMENT);
  }
  return ready;
}

function startWorkerProcess(
  env: Record<string, string> = {},
): Promise<{ process: ChildProcess; output: string[] }> {
  const output: string[] = [];
  const worker = spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
    cwd: join(__dirname, '..'),
    env: {
      ...process.env,
      DATABASE_URL: process.env.DATABASE_URL,
      PRIOR_AUTH_DATA_DIR: dataDir,
      SIGNING_SECRET: TEST_SIGNING_SECRET,
      LOG_LEVEL: 'info',
      WORKER_CONCURRENCY: '2',
      WORKER_POLL_INTERVAL_MS: '50',
      SANDBOX_DECISION_DELAY_SECONDS: '0',
      PAYER_SANDBOX_URL: website.url,
      BROWSER_EXECUTABLE_PATH: process.env.WORKER_TEST_BROWSER!,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = worker;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output.join('\n')}`)), 60_000);
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

it('a worker whose browser cannot start stops at once with one clear line', async () => {
  const failure = startWorkerProcess({ BROWSER_EXECUTABLE_PATH: join(dataDir, 'no-such-chromium') });
  await expect(failure).rejects.toThrow(/worker exited with 1/);
  await expect(failure).rejects.toThrow(
    /BROWSER_EXECUTABLE_PATH=.*no-such-chromium is not an executable file/,
  );
});

it('SIGTERM finishes the running step, then exits cleanly', async () => {
  // A grace period the step fits in however loaded the machine is; running out of it is another test's case.
  const { process: worker, output } = await startWorkerProcess({ SHUTDOWN_GRACE_MS: '60000' });
  const ready = await readyCase('SBX-PENDING');
  await h.confirm(ready.id);
  await h.waitFor(ready.id, (a) => a.finalBoundaryCrossedAt !== null, 'past the boundary', 60_000);

  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  worker.kill('SIGTERM');
  expect(await exited).toBe(0);
  // The submission in flight was finished and recorded, not abandoned.
  const stored = await h.get(ready.id);
  expect(stored.status).toBe('waiting_on_payer');
  const [process] = await h.jobs(ready.id);
  // Settled by pg-boss before the worker stopped, so the queue's own stop found nothing active to fail.
  expect(process).toMatchObject({ type: 'process', attempts: 1, state: 'completed' });
  expect(output.some((line) => line.includes('"worker stopped"'))).toBe(true);
}, 120_000);

it('a worker killed mid-submission is replaced: the case completes with one submission', async () => {
  const { process: worker, output } = await startWorkerProcess();
  const ready = await readyCase('SBX-APPROVED');
  await h.confirm(ready.id);

  // The boundary crossing is committed right before the submit run starts in the browser: killed inside it.
  const crossed = await h.waitFor(
    ready.id,
    (a) => a.finalBoundaryCrossedAt !== null,
    'past the boundary',
    60_000,
  );
  const exited = new Promise((resolve) => worker.once('exit', (_code, signal) => resolve(signal)));
  worker.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');

  const orphaned = await h.get(ready.id);
  expect(orphaned.status).toBe('processing');
  expect(orphaned.submission.payerReceipt).toBeNull();
  const [claimed] = await h.jobs(ready.id);
  expect(claimed).toMatchObject({ type: 'process', attempts: 1, state: 'active' });

  const spy = new SpyPayerPortal(website.portal());
  const survivor = await h.startWorker({ portal: spy });
  const done = await h.waitForStatus(ready.id, 'completed', RECOVERY_MS);

  expect(done.outcome).toBe('approved');
  const key = `${ready.id}:${crossed.finalBoundaryCrossedAt!.getTime().toString(36)}`;
  expect(spy.callsTo('findSubmission', ready.id).map((c) => c.idempotencyKey)).toEqual([key]);
  expect(spy.callsTo('submit', ready.id).map((c) => c.idempotencyKey)).toEqual([key]);
  expect(done.submission.payerReceipt?.referenceNumber).toMatch(PAYER_REFERENCE);
  await expectConfirmationImage(done.submission.payerReceipt);
  expect(await submissionsAtPayer(key)).toBe(1);
  const events = await h.eventTypes(ready.id);
  expect(events.filter((e) => e === 'authorization.final_boundary_crossed')).toHaveLength(1);
  expect(events.filter((e) => e === 'authorization.receipt_recorded')).toHaveLength(1);

  const [process] = await h.settledJobs(ready.id);
  expect(process).toMatchObject({ type: 'process', attempts: 2, state: 'completed' });
  expect(survivor.settled.find((s) => s.job.id === process!.id)?.settlement).toMatchObject({
    status: 'completed',
    outcome: 'receipt_recorded',
  });
  // The killed worker got as far as the portal and no further.
  expect(output.some((line) => line.includes('"job completed"') && line.includes(ready.id))).toBe(false);
}, 150_000);

/** Confirms a case with no worker running and makes its process job's first attempt the final one. */
async function confirmOnFinalAttempt(memberId: string) {
  const ready = await readyCase(memberId);
  await h.confirm(ready.id);
  await h.dataSource.query(`UPDATE ${JOB_TABLE} SET retry_limit = 0 WHERE data->>'authorizationId' = $1`, [
    ready.id,
  ]);
  return ready;
}

async function kill(worker: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => worker.once('exit', (_code, signal) => resolve(signal)));
  worker.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

describe('a worker killed on the final attempt of a job', () => {
  it('after the final boundary: another worker gives the job up and reconciles; one submission, approved', async () => {
    const ready = await confirmOnFinalAttempt('SBX-APPROVED');
    const { process: worker } = await startWorkerProcess();
    const crossed = await h.waitFor(
      ready.id,
      (a) => a.finalBoundaryCrossedAt !== null,
      'past the boundary',
      60_000,
    );
    await kill(worker);
    const [stranded] = await h.jobs(ready.id);
    expect(stranded).toMatchObject({ type: 'process', attempts: 1, max_attempts: 1, state: 'active' });
    expect((await h.get(ready.id)).status).toBe('processing');

    const spy = new SpyPayerPortal(website.portal());
    const survivor = await h.startWorker({ portal: spy });
    const done = await h.waitForStatus(ready.id, 'completed', RECOVERY_MS);

    // A submission may have reached the payer, so the case is reconciled, never failed.
    expect(done.outcome).toBe('approved');
    const key = `${ready.id}:${crossed.finalBoundaryCrossedAt!.getTime().toString(36)}`;
    expect(spy.callsTo('findSubmission', ready.id).map((c) => c.idempotencyKey)).toEqual([key]);
    expect(spy.callsTo('submit', ready.id).map((c) => c.idempotencyKey)).toEqual([key]);
    expect(done.submission.payerReceipt?.referenceNumber).toMatch(PAYER_REFERENCE);
    await expectConfirmationImage(done.submission.payerReceipt);
    expect(await submissionsAtPayer(key)).toBe(1);
    const events = await h.eventTypes(ready.id);
    expect(events.filter((e) => e === 'authorization.receipt_recorded')).toHaveLength(1);

    const jobs = await h.settledJobs(ready.id);
    const types = jobs.map((j) => j.type);
    expect(types.slice(0, 2)).toEqual(['process', 'reconcile']);
    // The poll and the due-date job (docs/decisions/0031-events-and-webhooks.md) come with the receipt.
    expect(types.slice(2).sort()).toEqual(['decision_overdue', 'poll_decision']);
    expect(jobs[0]).toMatchObject({ attempts: 1, state: 'failed' });
    expect(jobs[1]).toMatchObject({ state: 'completed' });
    expect(await h.settledGivenUp(ready.id)).toMatchObject([
      { source_name: 'process', state: 'completed', output: { consequence: 'reconcile_scheduled' } },
    ]);
    expect(
      survivor.settled.find((s) => s.job.type === 'process' && s.settlement.status === 'gave_up')?.settlement,
    ).toEqual({ status: 'gave_up', consequence: 'reconcile_scheduled' });
  }, 150_000);

  it('before the final boundary: another worker fails the case; nothing reaches the payer', async () => {
    const ready = await confirmOnFinalAttempt('SBX-APPROVED');
    const { process: worker } = await startWorkerProcess();
    // Two browser runs (discovery, validation) come before the boundary: killed as soon as the job is taken.
    const deadline = Date.now() + 20_000;
    while ((await h.jobs(ready.id))[0]?.state !== 'active') {
      if (Date.now() > deadline) throw new Error('the job was not claimed');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await kill(worker);
    const orphaned = await h.get(ready.id);
    expect(orphaned).toMatchObject({ status: 'processing', finalBoundaryCrossedAt: null });

    const spy = new SpyPayerPortal(website.portal());
    await h.startWorker({ portal: spy });
    const done = await h.waitForStatus(ready.id, 'completed', RECOVERY_MS);

    expect(done.outcome).toBe('failed');
    expect(done.failure).toMatchObject({ code: 'processing_retries_exhausted' });
    expect(spy.calls.filter((c) => c.authorizationId === ready.id)).toEqual([]);
    expect(await h.eventTypes(ready.id)).toContain('authorization.failed');
    const [process] = await h.jobs(ready.id);
    expect(process).toMatchObject({ state: 'failed' });
    // The given-up job is marked done once its consequence committed, just after the case shows it.
    expect(await h.settledGivenUp(ready.id)).toMatchObject([
      { source_name: 'process', output: { consequence: 'case_failed' } },
    ]);
  }, 150_000);
});

it('SIGTERM past the grace period releases the running job without using up its attempt', async () => {
  const ready = await confirmOnFinalAttempt('SBX-APPROVED');
  const { process: worker, output } = await startWorkerProcess({ SHUTDOWN_GRACE_MS: '50' });
  const crossed = await h.waitFor(
    ready.id,
    (a) => a.finalBoundaryCrossedAt !== null,
    'past the boundary',
    60_000,
  );
  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  worker.kill('SIGTERM'); // the submission's browser run takes longer than the grace
  expect(await exited).toBe(0);
  expect(output.some((line) => line.includes('"job released at shutdown"'))).toBe(true);
  const [released] = await h.jobs(ready.id);
  // One attempt started, and one more allowed: the interrupted one is given back.
  expect(released).toMatchObject({ attempts: 1, max_attempts: 2, state: 'retry' });
  expect(released!.output?.error).toMatch(/^worker_shutdown/);

  const spy = new SpyPayerPortal(website.portal());
  await h.startWorker({ portal: spy });
  const done = await h.waitForStatus(ready.id, 'completed', RECOVERY_MS);
  expect({ outcome: done.outcome, failure: done.failure }).toEqual({ outcome: 'approved', failure: null });
  const key = `${ready.id}:${crossed.finalBoundaryCrossedAt!.getTime().toString(36)}`;
  expect(spy.callsTo('submit', ready.id).map((c) => c.idempotencyKey)).toEqual([key]);
  expect(await submissionsAtPayer(key)).toBe(1);
  const [process] = await h.settledJobs(ready.id);
  expect(process).toMatchObject({ attempts: 2, max_attempts: 2, state: 'completed' });
}, 150_000);
