import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WORKER_JOB_TYPES, type ReplayEntry, type ReplayFrame, type ReplayGap } from '@prior-auth/domain';
import { type ScreencastLiveSessions } from '@prior-auth/payer-portal';
import {
  PostgresLiveSessionFrames,
  PostgresLiveSessionInputs,
  PostgresReplaySegments,
  TypeOrmRuntimeSessionLedger,
} from '@prior-auth/persistence-postgres';
import { RandomIdGenerator } from '@prior-auth/platform';
import { createPortalLiveSessions, createSandboxPayerPortal } from '../src/composition';
import { Harness, type TestWorker } from './support/harness';
import { PayerWebsite, PDF_DOCUMENT } from './support/payer-website';

/*
 * Replays of portal runs (docs/decisions/0045-portal-run-replays.md), end to end: sandbox cases run by an
 * in-process worker whose portal runs are live sessions on a real browser, recorded whether or not anyone
 * watches; then the admin CLI (the built command, as an operator runs it) exports a case's replay as one HTML
 * file. A customer_login run records nothing while it waits for the customer's sign-in: a gap marker instead.
 * A decision poll that finds the case still pending writes no replay at all.
 */

let h: Harness;
let website: PayerWebsite;
let liveSessions: ScreencastLiveSessions;
let segments: PostgresReplaySegments;
let worker: TestWorker;
const errors: unknown[] = [];
const written: string[] = [];

beforeAll(async () => {
  [h, website] = await Promise.all([Harness.open(), PayerWebsite.start()]);
  segments = new PostgresReplaySegments(h.dataSource, h.blobs);
  const clock = { now: () => new Date() };
  liveSessions = createPortalLiveSessions({
    dataSource: h.dataSource,
    replaySegments: segments,
    clock,
    ids: new RandomIdGenerator(),
    onReplayError: (error) => errors.push(error),
    onError: (error) => errors.push(error),
    timing: { watchCheckMs: 100, holdMs: 120_000 },
  });
  const portal = createSandboxPayerPortal({
    browser: website.browser,
    siteUrl: website.url,
    readAttachment: async () => PDF_DOCUMENT,
    stepScreenshots: false,
    liveSessions,
  });
  worker = await h.startWorker({ portal });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await liveSessions?.close();
  await website?.close();
  await Promise.all(written.map((file) => rm(file, { force: true })));
});

const ADMIN_CLI = resolve(__dirname, '../../admin/dist/main.js');

/** `pnpm admin replay export …` as an operator runs it, on this test's database and blob store. */
function adminExport(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [ADMIN_CLI, 'replay', 'export', ...args],
      {
        env: {
          ...process.env,
          DATABASE_URL: process.env.DATABASE_URL,
          BLOB_STORAGE_URL: pathToFileURL(h.blobs.root).href,
        },
      },
      (error, stdout, stderr) => done({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    );
  });
}

const outFile = () => {
  const file = join(tmpdir(), `replay-${randomBytes(6).toString('hex')}.html`);
  written.push(file);
  return file;
};

/** Every recorded entry of a case, oldest first, with the run it belongs to. */
async function replayOf(authorizationId: string): Promise<Array<ReplayEntry & { run: string }>> {
  const entries: Array<ReplayEntry & { run: string }> = [];
  for (const segment of await segments.list(h.scope, authorizationId, new Date())) {
    for (const entry of await segments.read(segment))
      entries.push({ ...entry, run: segment.runtimeSessionId });
  }
  return entries;
}

const JPEG_DATA_URI = /src="data:image\/jpeg;base64,\/9j\//g;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('records every portal run of a sandbox case unwatched, and the admin export shows its frames', async () => {
  const ready = await h.readyCase('SBX-APPROVED');
  await h.confirm(ready.id);
  await h.waitForStatus(ready.id, 'completed');

  const entries = await replayOf(ready.id);
  const frames = entries.filter((e) => e.kind === 'frame');
  expect(frames.length).toBeGreaterThan(0);
  expect(entries.filter((e) => e.kind === 'gap')).toEqual([]);
  // Every run of the pipeline (discovery, submission, decision polls…) is its own recorded run.
  expect(new Set(frames.map((f) => f.run)).size).toBeGreaterThan(1);
  for (const f of frames) {
    expect(Buffer.from(f.bytes).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(f.page).toMatch(/^\/[^?]*$/);
  }
  // Page changes are recorded: the runs go through several of the portal's pages.
  expect(new Set(frames.map((f) => f.page)).size).toBeGreaterThan(1);

  const out = outFile();
  const result = await adminExport(ready.id, '--out', out);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout).toContain(`wrote ${out}: ${frames.length} frames, 0 gap markers`);
  const html = await readFile(out, 'utf8');
  expect(html.match(JPEG_DATA_URI)?.length).toBe(frames.length);
  expect(html).toContain(frames[0]!.capturedAt.toISOString());
  expect(html).toContain('id="play"');
  // Self-contained: nothing is loaded from anywhere.
  expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);

  // The export is audited as a read of the case.
  const audited = (await h.dataSource.query(
    `SELECT actor, action, details FROM audit_log WHERE organization_id = $1 AND subject_id = $2
      AND action = 'replay.read'`,
    [h.organizationId, ready.id],
  )) as Array<{ actor: string; details: { frames: number } }>;
  expect(audited).toHaveLength(1);
  expect(audited[0]!.actor).toMatch(/^admin_cli:/);
  expect(audited[0]!.details.frames).toBe(frames.length);
});

it("records no frame while a customer_login run waits for the customer's sign-in: a gap marker instead", async () => {
  const ready = await h.readyCase('SBX-APPROVED', 'automatic', 'customer_login');
  await h.confirm(ready.id);
  await h.waitForAction(ready.id, 'complete_payer_interaction');
  const [held] = (await h.dataSource.query(
    `SELECT id FROM runtime_sessions WHERE authorization_id = $1 AND status <> 'ended'`,
    [ready.id],
  )) as Array<{ id: string }>;
  const sessionId = held!.id;
  const gapOf = (entries: ReplayEntry[]) => entries.find((e): e is ReplayGap => e.kind === 'gap');
  const gap = gapOf(
    await until(
      () => replayOf(ready.id),
      (e) => gapOf(e) !== undefined,
      'the gap marker',
    ),
  )!;
  expect(gap.reason).toBe('customer_sign_in');

  // The customer types on the kept page while someone watches: the page keeps painting, frames keep coming.
  const live = new PostgresLiveSessionFrames(h.dataSource);
  const inputs = new PostgresLiveSessionInputs(h.dataSource);
  await live.markWatched(sessionId, new Date(Date.now() + 30_000));
  const first = await until(
    () => live.latest(sessionId),
    (f) => f !== null,
    'a live frame',
  );
  await inputs.send(sessionId, { kind: 'key', key: 'Tab' });
  await inputs.send(sessionId, { kind: 'text', text: 'typed-by-the-customer' });
  // A later published frame was captured after the watch began, so after the hold: taken, not recorded.
  await until(
    () => live.latest(sessionId),
    (f) => (f?.seq ?? 0) > first!.seq,
    'a frame of the typing',
  );

  // The customer is done with the page (the handoff closed): the run ends and lets the page go.
  await new TypeOrmRuntimeSessionLedger(h.dataSource).end(sessionId, new Date());
  await until(
    () => live.latest(sessionId),
    (f) => f === null,
    'the held run to end',
  );

  const run = (await replayOf(ready.id)).filter((e) => e.run === sessionId);
  // The sign-in page's first picture may or may not come before the hold; none may come after it.
  const frames = run.filter((e) => e.kind === 'frame');
  expect(frames.every((f) => f.capturedAt.getTime() <= gap.at.getTime())).toBe(true);
  expect(run[run.length - 1]).toMatchObject({ kind: 'gap', reason: 'customer_sign_in' });

  const out = outFile();
  const result = await adminExport(ready.id, '--out', out);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('1 gap marker');
  const html = await readFile(out, 'utf8');
  expect(html).toContain('gap: customer sign-in');
  expect((html.match(JPEG_DATA_URI) ?? []).length).toBe(frames.length);
  expect(errors).toEqual([]);
});

it("stops recording where the payer's human check hands the page to an operator: a manual handoff gap", async () => {
  const ready = await h.readyCase('SBX-MANUAL-HANDOFF');
  await h.confirm(ready.id);
  await h.waitForAction(ready.id, 'complete_payer_interaction');
  const gapped = await until(
    () => replayOf(ready.id),
    (entries) => entries.some((e) => e.kind === 'gap'),
    'the gap marker',
  );
  const gap = gapped.find((e): e is ReplayGap & { run: string } => e.kind === 'gap')!;
  expect(gap.reason).toBe('manual_handoff');
  const [held] = (await h.dataSource.query(
    `SELECT id FROM runtime_sessions WHERE authorization_id = $1 AND status <> 'ended'`,
    [ready.id],
  )) as Array<{ id: string }>;
  expect(held!.id).toBe(gap.run);
  // Held and unwatched, the page has no use for a screencast: its replay stopped at the hold (decision 0033).
  await until(
    async () => liveSessions.counts(),
    (counts) => counts.pages === 1 && counts.screencasts === 0,
    'the held page to stop being screencast',
  );
  // Someone watches: the screencast starts again and sends the page's picture at once.
  const live = new PostgresLiveSessionFrames(h.dataSource);
  await live.markWatched(gap.run, new Date(Date.now() + 30_000));
  await until(
    () => live.latest(gap.run),
    (f) => f !== null,
    'a live frame of the held page',
  );
  await until(
    async () => liveSessions.counts(),
    (counts) => counts.pages === 1 && counts.screencasts === 1,
    'the watched page to be screencast',
  );
  // The operator's hold ends (the handoff closed): nothing of the held page was added to the run's replay.
  await new TypeOrmRuntimeSessionLedger(h.dataSource).end(gap.run, new Date());
  await until(
    () => live.latest(gap.run),
    (f) => f === null,
    'the held run to end',
  );
  const run = (await replayOf(ready.id)).filter((e) => e.run === gap.run);
  expect(run[run.length - 1]).toMatchObject({ kind: 'gap', reason: 'manual_handoff' });
  expect(run.filter((e) => e.kind === 'frame').length).toBeGreaterThan(0);
  expect(errors).toEqual([]);
});

it('keeps the replay of the poll that found the decision, and none of the polls that found the case pending', async () => {
  const ready = await h.readyCase('SBX-PENDING');
  await h.confirm(ready.id);
  const waiting = await h.waitForStatus(ready.id, 'waiting_on_payer');
  const reference = waiting.submission.payerReceipt!.referenceNumber!;
  const polls = (outcome: string) =>
    worker.settled.filter(
      ({ job, settlement }) =>
        job.authorizationId === ready.id &&
        job.type === WORKER_JOB_TYPES.pollDecision &&
        settlement.status === 'completed' &&
        settlement.outcome === outcome,
    ).length;
  // The payer keeps the request in review for a few polls, then decides it.
  await until(
    async () => polls('decision_pending'),
    (n) => n >= 2,
    'two pending polls',
  );
  await h.dataSource.query(
    `UPDATE payer_sandbox.requests SET scenario = 'approved' WHERE reference_number = $1`,
    [reference],
  );
  await h.waitForStatus(ready.id, 'completed');
  // The deciding poll's job settles just after the case's commit shows.
  await until(
    async () => polls('decision_recorded'),
    (n) => n === 1,
    'the deciding poll to settle',
  );
  const pending = polls('decision_pending');

  // Every run of the case is a browser session of its own; only the pending polls' have no segment.
  const runs = (await h.dataSource.query(
    `SELECT s.id, (SELECT count(*)::int FROM replay_segments r WHERE r.runtime_session_id = s.id) AS segments
       FROM runtime_sessions s WHERE s.authorization_id = $1 ORDER BY s.created_at, s.id`,
    [ready.id],
  )) as Array<{ id: string; segments: number }>;
  expect(pending).toBeGreaterThanOrEqual(2);
  expect(runs.filter((r) => r.segments === 0)).toHaveLength(pending);
  expect(runs.filter((r) => r.segments > 0).length).toBe(runs.length - pending);
  // The last run is the poll that found the decision: recorded, on the request's status page.
  const deciding = runs[runs.length - 1]!;
  expect(deciding.segments).toBeGreaterThan(0);
  const entries = await replayOf(ready.id);
  const frames = entries.filter((e): e is ReplayFrame & { run: string } => e.kind === 'frame');
  const decidingFrames = frames.filter((f) => f.run === deciding.id);
  expect(decidingFrames.map((f) => f.page)).toContain(`/requests/${reference}`);

  const out = outFile();
  const result = await adminExport(ready.id, '--out', out);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain(`${frames.length} frames`);
  const html = await readFile(out, 'utf8');
  expect(html.match(JPEG_DATA_URI)?.length).toBe(frames.length);
  for (const f of decidingFrames) expect(html).toContain(f.capturedAt.toISOString());
  expect(errors).toEqual([]);
});

it('refuses an unknown case, and says so when a case has no replay', async () => {
  const unknown = await adminExport(`auth_${randomBytes(8).toString('hex')}`, '--out', outFile());
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toMatch(/^error: no case auth_/);

  const quiet = await h.readyCase('M-NO-REPLAY');
  const none = await adminExport(quiet.id, '--out', outFile());
  expect(none.code).toBe(2);
  expect(none.stderr).toContain(`case ${quiet.id} has no replay`);
});
