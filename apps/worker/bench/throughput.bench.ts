/*
 * Worker throughput: sandbox cases per second from confirm to completed (approved), with one and with two
 * in-process workers, each on its own connection pool like a separate process, against a real PostgreSQL
 * (a throwaway embedded server, or a fresh database on DATABASE_URL's server). Every worker submits through its
 * own browser to the simulated payer website (decisions 0017 and 0022), which decides at once (no decision
 * delay), so this measures the portal runs. Resident memory is printed before and after each round, for this
 * process (shared by the round's workers) and for the browsers per worker: it must stay bounded over the cases.
 * Each worker's portal runs as the worker process runs it: with step screenshots, and every run a live session
 * (the page's screencast) recorded as a replay (decisions 0033 and 0045). BENCH_LIVE_SESSIONS=0 leaves the live
 * sessions out, to show what they cost.
 *
 * Run with `pnpm --filter @prior-auth/worker bench` (dependencies built) or `pnpm bench` at the root.
 * BENCH_CASES (default 200) and WORKER_CONCURRENCY (default 4) tune it.
 */
import { execFileSync } from 'node:child_process';
import {
  ChromiumBrowser,
  resolveBrowserExecutable,
  type ScreencastLiveSessions,
} from '@prior-auth/payer-portal';
import {
  PostgresReplaySegments,
  setupTestDatabase,
  teardownTestDatabase,
} from '@prior-auth/persistence-postgres';
import { RandomIdGenerator } from '@prior-auth/platform';
import { createPortalLiveSessions, createSandboxPayerPortal } from '../src/composition';
import { Harness } from '../test/support/harness';
import { PayerWebsite, PDF_DOCUMENT } from '../test/support/payer-website';

const CASES = Number(process.env.BENCH_CASES ?? 200);
const CONCURRENCY = Number(process.env.WORKER_CONCURRENCY ?? 4);
const CONFIRM_PARALLELISM = 8;
const LIVE_SESSIONS = process.env.BENCH_LIVE_SESSIONS !== '0';
const MB = 1024 * 1024;

interface Round {
  workers: number;
  seconds: number;
  casesPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  jobsPerSecond: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  /** Resident memory of the workers' browsers (all their processes) per worker, before and after the round. */
  browserRssBeforeMb: number;
  browserRssAfterMb: number;
  /** Replay segments the runs wrote, and what the live sessions reported as failed (both 0 when off). */
  replaySegments: number;
  liveSessionErrors: number;
}

/**
 * Resident memory (MB) of every browser this process started: its non-Node child processes and all their
 * descendants (Chromium's renderers and helpers). The website is a Node child and is left out.
 */
function browsersRssMb(): number {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,comm='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => {
      const [pid, ppid, rss, command] = line.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), rssKb: Number(rss), command: command ?? '' };
    });
  const members = new Set(
    table.filter((p) => p.ppid === process.pid && p.command !== 'node').map((p) => p.pid),
  );
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table) {
      if (members.has(p.ppid) && !members.has(p.pid)) {
        members.add(p.pid);
        grew = true;
      }
    }
  }
  return table.filter((p) => members.has(p.pid)).reduce((sum, p) => sum + p.rssKb, 0) / 1024;
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;

async function round(workerCount: number, website: PayerWebsite): Promise<Round> {
  const h = await Harness.open();
  // One browser per worker, as one per worker process (decision 0017).
  const browsers: ChromiumBrowser[] = [];
  const liveSessions: ScreencastLiveSessions[] = [];
  let liveSessionErrors = 0;
  const onError = () => {
    liveSessionErrors += 1;
  };
  try {
    const cases = [];
    for (let i = 0; i < CASES; i += 1) cases.push(await h.readyCase('SBX-APPROVED'));

    const confirmedAt = new Map<string, number>();
    const latencies: number[] = [];
    let jobs = 0;
    let finished!: () => void;
    const allDone = new Promise<void>((resolve) => (finished = resolve));
    for (let w = 0; w < workerCount; w += 1) {
      const browser = new ChromiumBrowser({ executablePath: process.env.WORKER_TEST_BROWSER });
      browsers.push(browser);
      await browser.ensureStarted();
      // As the worker process wires it: every run live and recorded.
      const live = LIVE_SESSIONS
        ? createPortalLiveSessions({
            dataSource: h.dataSource,
            replaySegments: new PostgresReplaySegments(h.dataSource, h.blobs),
            clock: { now: () => new Date() },
            ids: new RandomIdGenerator(),
            onReplayError: onError,
            onError,
          })
        : undefined;
      if (live) liveSessions.push(live);
      await h.startWorker({
        portal: createSandboxPayerPortal({
          browser,
          siteUrl: website.url,
          readAttachment: async () => PDF_DOCUMENT,
          liveSessions: live,
        }),
        concurrency: CONCURRENCY,
        pollIntervalMs: 500,
        pipelineSettings: { sandbox: { decisionPollIntervalMs: 0 } },
        onJobSettled: ({ job, settlement }) => {
          jobs += 1;
          if (settlement.status !== 'completed')
            throw new Error(`job ${job.id}: ${JSON.stringify(settlement)}`);
          if (settlement.outcome !== 'decision_recorded') return;
          latencies.push(performance.now() - confirmedAt.get(job.authorizationId)!);
          if (latencies.length === CASES) finished();
        },
      });
    }

    const rssBefore = process.memoryUsage().rss;
    const browserRssBefore = browsersRssMb() / workerCount;
    const started = performance.now();
    const queue = [...cases];
    await Promise.all(
      Array.from({ length: CONFIRM_PARALLELISM }, async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          await h.confirm(next.id);
          confirmedAt.set(next.id, performance.now());
        }
      }),
    );
    await allDone;
    const seconds = (performance.now() - started) / 1_000;
    latencies.sort((a, b) => a - b);
    return {
      workers: workerCount,
      seconds,
      casesPerSecond: CASES / seconds,
      p50Ms: percentile(latencies, 0.5),
      p95Ms: percentile(latencies, 0.95),
      jobsPerSecond: jobs / seconds,
      rssBeforeMb: rssBefore / MB,
      rssAfterMb: process.memoryUsage().rss / MB,
      browserRssBeforeMb: browserRssBefore,
      browserRssAfterMb: browsersRssMb() / workerCount,
      replaySegments: (
        (await h.dataSource.query(
          'SELECT count(*)::int AS count FROM replay_segments WHERE organization_id = $1',
          [h.organizationId],
        )) as Array<{ count: number }>
      )[0]!.count,
      liveSessionErrors,
    };
  } finally {
    await h.close();
    await Promise.all(liveSessions.map((live) => live.close()));
    await Promise.all(browsers.map((browser) => browser.close()));
  }
}

async function main(): Promise<void> {
  await setupTestDatabase();
  let website: PayerWebsite | null = null;
  try {
    // Unpacked once, before the workers start their browsers.
    process.env.WORKER_TEST_BROWSER = await resolveBrowserExecutable(
      process.env.BROWSER_EXECUTABLE_PATH || undefined,
    );
    website = await PayerWebsite.start();
    const rounds: Round[] = [];
    for (const workers of [1, 2]) rounds.push(await round(workers, website));
    console.log(
      `\nWorker throughput: ${CASES} sandbox cases, confirm → completed, concurrency ${CONCURRENCY} per worker, through the browser and the simulated payer website, live sessions ${LIVE_SESSIONS ? 'on' : 'off'}\n`,
    );
    console.log(
      '| workers | seconds | cases/s | jobs/s | p50 latency ms | p95 latency ms | worker RSS before → after MB | browser RSS per worker before → after MB | replay segments / live-session errors |',
    );
    console.log('|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
    for (const r of rounds) {
      const perBrowser = `${r.browserRssBeforeMb.toFixed(0)} → ${r.browserRssAfterMb.toFixed(0)}`;
      console.log(
        `| ${r.workers} | ${r.seconds.toFixed(2)} | ${r.casesPerSecond.toFixed(2)} | ${r.jobsPerSecond.toFixed(1)} | ${r.p50Ms.toFixed(0)} | ${r.p95Ms.toFixed(0)} | ${r.rssBeforeMb.toFixed(0)} → ${r.rssAfterMb.toFixed(0)} | ${perBrowser} | ${r.replaySegments} / ${r.liveSessionErrors} |`,
      );
    }
  } finally {
    await website?.close();
    await teardownTestDatabase();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
