/*
 * Worker throughput: sandbox cases per second from confirm to completed (approved), with one and with two
 * in-process workers, each on its own connection pool like a separate process, against a real PostgreSQL
 * (a throwaway embedded server, or a fresh database on DATABASE_URL's server). The sandbox payer answers at
 * once (no decision delay). By default every worker submits through its own browser to the simulated payer
 * website (decision 0017), so this measures the portal runs; BENCH_PORTAL=simulator measures the pipeline
 * alone (claims, use cases, transactions) against the stateless simulator. The process's resident memory is
 * printed before and after each round: it must stay bounded over the cases.
 *
 * Run with `pnpm --filter @prior-auth/worker bench` (dependencies built) or `pnpm bench` at the root.
 * BENCH_CASES (default 200) and WORKER_CONCURRENCY (default 4) tune it.
 */
import { type PayerPortal } from '@prior-auth/domain';
import { ChromiumBrowser, resolveBrowserExecutable, SandboxPayerPortal } from '@prior-auth/payer-portal';
import { setupTestDatabase, teardownTestDatabase } from '@prior-auth/persistence-postgres';
import { Harness } from '../test/support/harness';
import { PayerWebsite } from '../test/support/payer-website';

const CASES = Number(process.env.BENCH_CASES ?? 200);
const CONCURRENCY = Number(process.env.WORKER_CONCURRENCY ?? 4);
const CONFIRM_PARALLELISM = 8;
const THROUGH_BROWSER = (process.env.BENCH_PORTAL ?? 'browser') !== 'simulator';
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
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;

async function round(workerCount: number, website: PayerWebsite | null): Promise<Round> {
  const h = await Harness.open();
  // One browser per worker, as one per worker process (decision 0017).
  const browsers: ChromiumBrowser[] = [];
  try {
    const cases = [];
    for (let i = 0; i < CASES; i += 1) cases.push(await h.readyCase('SBX-APPROVED'));

    const confirmedAt = new Map<string, number>();
    const latencies: number[] = [];
    let jobs = 0;
    let finished!: () => void;
    const allDone = new Promise<void>((resolve) => (finished = resolve));
    const simulator = new SandboxPayerPortal({ decisionDelayMs: 0 });
    for (let w = 0; w < workerCount; w += 1) {
      let portal: PayerPortal = simulator;
      if (website !== null) {
        const browser = new ChromiumBrowser({ executablePath: process.env.WORKER_TEST_BROWSER });
        browsers.push(browser);
        await browser.ensureStarted();
        portal = website.portal(browser);
      }
      await h.startWorker({
        portal,
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
    };
  } finally {
    await h.close();
    await Promise.all(browsers.map((browser) => browser.close()));
  }
}

async function main(): Promise<void> {
  await setupTestDatabase();
  let website: PayerWebsite | null = null;
  try {
    if (THROUGH_BROWSER) {
      // Unpacked once, before the workers start their browsers.
      process.env.WORKER_TEST_BROWSER = await resolveBrowserExecutable(
        process.env.BROWSER_EXECUTABLE_PATH || undefined,
      );
      website = await PayerWebsite.start();
    }
    const rounds: Round[] = [];
    for (const workers of [1, 2]) rounds.push(await round(workers, website));
    console.log(
      `\nWorker throughput: ${CASES} sandbox cases, confirm → completed, concurrency ${CONCURRENCY} per worker, ${THROUGH_BROWSER ? 'through the browser and the simulated payer website' : 'stateless simulator'}\n`,
    );
    console.log(
      '| workers | seconds | cases/s | jobs/s | p50 latency ms | p95 latency ms | RSS before MB | RSS after MB |',
    );
    console.log(
      '|--------:|--------:|--------:|-------:|---------------:|---------------:|--------------:|-------------:|',
    );
    for (const r of rounds) {
      console.log(
        `| ${r.workers} | ${r.seconds.toFixed(2)} | ${r.casesPerSecond.toFixed(2)} | ${r.jobsPerSecond.toFixed(1)} | ${r.p50Ms.toFixed(0)} | ${r.p95Ms.toFixed(0)} | ${r.rssBeforeMb.toFixed(0)} | ${r.rssAfterMb.toFixed(0)} |`,
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
